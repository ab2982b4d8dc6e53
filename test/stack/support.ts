import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Runs `pnpm admin ...` as an operator would, returning exit code and output. */
export function runAdmin(args: string[], env: NodeJS.ProcessEnv) {
  const result = spawnSync("pnpm", ["admin", ...args], { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The same, without blocking the event loop: for tests whose billing runs in this very process
 * (a synchronous child would keep it from answering).
 */
export function runAdminAsync(args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn("pnpm", ["admin", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let [stdout, stderr] = ["", ""];
    child.stdout.on("data", (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("exit", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Starts a service's main.ts with the given environment and resolves when it exits (or times out). */
export function runServiceMain(service: string, env: NodeJS.ProcessEnv, timeoutMs = 20_000) {
  return new Promise<{ code: number | null; stderr: string; timedOut: boolean }>((resolve) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(ROOT, "services", service, "src", "main.ts")],
      {
        cwd: ROOT,
        env,
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, stderr, timedOut: signal === "SIGKILL" });
    });
  });
}
