import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SERVICE = join(dirname(fileURLToPath(import.meta.url)), "..");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs src/main.ts; `whenListening` runs once the start line is logged, then SIGTERM is sent. */
function runMain(env: Record<string, string>, whenListening?: (url: string) => Promise<void>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: SERVICE,
      // Any free metrics port unless a test names one: the default (9207) may be a running stack's.
      env: { ...process.env, LOG_LEVEL: "info", METRICS_PORT: "0", ...env },
    });
    const run: Run = { code: null, stdout: "", stderr: "" };
    const killer = setTimeout(() => child.kill("SIGKILL"), 40_000);
    child.stdout.on("data", (chunk: Buffer) => {
      run.stdout += chunk;
      const started = /"url":"(http[^"]+)"[^\n]*upstream simulator listening/.exec(run.stdout);
      if (started && whenListening && !child.killed) {
        const check = whenListening;
        whenListening = undefined;
        check(started[1]!).then(() => child.kill("SIGTERM"), reject);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      run.stderr += chunk;
    });
    child.on("exit", (code) => {
      clearTimeout(killer);
      resolve({ ...run, code });
    });
  });
}

describe("the simulator process", () => {
  it.each([
    ["SIM_PORT", "eighty"],
    ["SIM_SEED", "-4"],
    ["SIM_LATENCY_MS", "soon"],
    ["SIM_SCALE", "0"],
    ["LOG_LEVEL", "loud"],
    ["SIM_PROFILE", "lenient"],
    ["SIM_MAX_IN_FLIGHT", "-1"],
  ])("exits at once naming %s when it is %j", async (name, value) => {
    const run = await runMain({ [name]: value });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(name);
  });

  it("refuses to start, naming METRICS_PORT, when its metrics port is taken, and never says it is listening", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const taken = (holder.address() as { port: number }).port;
    try {
      const run = await runMain({ SIM_PORT: "0", SIM_SCALE: "0.05", METRICS_PORT: String(taken) });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(`METRICS_PORT: port ${taken} on 127.0.0.1 is already in use`);
      expect(run.stdout).not.toContain("listening");
    } finally {
      holder.close();
    }
  }, 60_000);

  it("logs its corpus size and generation time, serves, and stops cleanly on SIGTERM", async () => {
    let served: unknown;
    const run = await runMain({ SIM_PORT: "0", SIM_SCALE: "0.05", SIM_SEED: "9" }, async (url) => {
      served = await (await fetch(`${url}/api/posts/search?limit=1`)).json();
    });
    expect(run.code).toBe(0);
    expect(served).toMatchObject({ data: [expect.objectContaining({ id: expect.any(String) })] });
    const line = JSON.parse(run.stdout.split("\n").find((l) => l.includes("upstream simulator listening"))!);
    expect(line).toMatchObject({
      seed: 9,
      posts: expect.any(Number),
      comments: expect.any(Number),
      generation_ms: expect.any(Number),
    });
    expect(run.stdout).toContain('"msg":"stopped"');
  }, 60_000);

  it("rations its clients as the real upstream does under SIM_PROFILE=strict, a flag overriding it", async () => {
    let stats: { budget?: Record<string, number> } = {};
    const env = { SIM_PORT: "0", SIM_SCALE: "0.05", SIM_PROFILE: "strict", SIM_WINDOW_LIMIT: "30" };
    const run = await runMain(env, async (url) => {
      await fetch(`${url}/api/posts/search?limit=1`);
      stats = (await (await fetch(`${url}/__sim/stats`)).json()) as typeof stats;
    });
    expect(run.code).toBe(0);
    expect(stats.budget).toMatchObject({ window_limit: 30, max_in_flight_allowed: 2, peak_in_window: 1 });
  }, 60_000);
});
