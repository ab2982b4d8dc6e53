/**
 * `pnpm start`: the whole local stack in the foreground. Each service runs as its own Node process
 * with its log lines prefixed by its name; the upstream simulator runs unless UPSTREAM_URL is set.
 * Ready when the gateway's /readyz answers 200; Ctrl-C stops every service cleanly.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ensureLocalServers } from "./local-servers.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Start order: what others depend on first; the gateway last, since its readiness means "up". */
const SERVICE_ORDER = [
  "upstream-sim",
  "billing",
  "adapter-posts",
  "adapter-tree",
  "adapter-communities",
  "adapter-users",
  "mcp",
  "gateway",
] as const;
const COLOURS = [36, 33, 35, 32, 34, 96, 93, 95];
const STOP_GRACE_MS = 15_000;

const running = new Map<string, ChildProcess>();
let stopping = false;

async function main(): Promise<void> {
  const env = stackEnvironment();
  await ensureLocalServers(env.REDIS_URL!, env.NATS_URL!, (line) => console.log(`[stack] ${line}`));
  const services = SERVICE_ORDER.filter((name) => existsSync(join(ROOT, "services", name, "src", "main.ts")));
  const toStart = process.env.UPSTREAM_URL ? services.filter((name) => name !== "upstream-sim") : services;
  for (const [index, name] of toStart.entries()) startService(name, env, COLOURS[index % COLOURS.length]!);
  process.once("SIGINT", () => void stopAll(0));
  process.once("SIGTERM", () => void stopAll(0));
  process.once("SIGHUP", () => void stopAll(0));
  const gatewayUrl = `http://${displayHost(env.HOST!)}:${env.PORT}`;
  await waitUntilReady(`${gatewayUrl}/readyz`);
  const upstream = process.env.UPSTREAM_URL
    ? `upstream ${env.UPSTREAM_URL}`
    : `simulated upstream ${env.UPSTREAM_URL}`;
  console.log(`[stack] API ready at ${gatewayUrl} (MCP at ${gatewayUrl}/mcp, ${upstream}); Ctrl-C stops it`);
}

/** DESIGN.md's defaults, plus the URLs by which the services find each other on this machine. */
function stackEnvironment(): NodeJS.ProcessEnv {
  const given = process.env;
  const port = given.PORT || "8080";
  const simPort = given.SIM_PORT || "8070";
  const mcpPort = given.MCP_PORT || "8090";
  return {
    ...given,
    PORT: port,
    HOST: given.HOST || "127.0.0.1",
    REDIS_URL: given.REDIS_URL || "redis://127.0.0.1:6379",
    NATS_URL: given.NATS_URL || "nats://127.0.0.1:4222",
    SIM_PORT: simPort,
    MCP_PORT: mcpPort,
    UPSTREAM_URL: given.UPSTREAM_URL || `http://127.0.0.1:${simPort}`,
    MCP_URL: given.MCP_URL || `http://127.0.0.1:${mcpPort}`,
    GATEWAY_URL: given.GATEWAY_URL || `http://127.0.0.1:${port}`,
  };
}

function startService(name: string, env: NodeJS.ProcessEnv, colour: number): void {
  const entry = join(ROOT, "services", name, "src", "main.ts");
  // Own process group: a terminal's Ctrl-C reaches only this runner, which then stops each service
  // once with SIGTERM (a second signal would make a service skip its graceful shutdown).
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const prefix = `\u001b[${colour}m[${name}]\u001b[0m `;
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => process.stdout.write(`${prefix}${line}\n`));
  }
  child.once("exit", (code, signal) => onServiceExit(name, code, signal));
  running.set(name, child);
}

function onServiceExit(name: string, code: number | null, signal: NodeJS.Signals | null): void {
  running.delete(name);
  if (stopping) return;
  console.error(`[stack] ${name} exited (${signal ?? `code ${code}`}); stopping the stack`);
  void stopAll(1);
}

async function waitUntilReady(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (stopping) return;
    const ready = await fetch(url)
      .then((response) => response.ok)
      .catch(() => false);
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  console.error(`[stack] the gateway was not ready at ${url} after ${timeoutMs / 1000} s; stopping`);
  await stopAll(1);
}

async function stopAll(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log("[stack] stopping every service");
  const exits = [...running.values()].map(
    (child) =>
      new Promise<void>((resolve) =>
        child.exitCode !== null ? resolve() : child.once("exit", () => resolve()),
      ),
  );
  // Reverse start order: the gateway stops taking requests before the services it calls go away.
  for (const child of [...running.values()].reverse()) child.kill("SIGTERM");
  const killer = setTimeout(() => {
    for (const child of running.values()) child.kill("SIGKILL");
  }, STOP_GRACE_MS);
  await Promise.all(exits);
  clearTimeout(killer);
  process.exit(exitCode);
}

function displayHost(host: string): string {
  return host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
}

main().catch((error: unknown) => {
  console.error(`[stack] ${error instanceof Error ? error.message : String(error)}`);
  void stopAll(1);
});
