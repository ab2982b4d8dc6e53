/**
 * `pnpm start`'s check of its own Redis and NATS (scripts/local-servers.ts), beside another
 * nats-server on the host. Every server here is the test's own, on free ports: the shared ones are
 * never touched.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, type PrivateServer, startPrivateNats, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkNats, checkRedis, ensureNats, ensureRedis } from "../../scripts/local-servers.ts";

const started: number[] = [];
const store = mkdtempSync(join(tmpdir(), "rda-start-check-"));
let other: PrivateServer;

beforeAll(async () => {
  other = await startPrivateNats(await freePort());
});

afterAll(async () => {
  for (const pid of started) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  await other?.remove();
  rmSync(store, { recursive: true, force: true });
});

describe("pnpm start's check of its own servers", () => {
  it("starts its own nats-server on the configured port although another runs on the host", async () => {
    const url = `nats://127.0.0.1:${await freePort()}`;
    const lines: string[] = [];
    const pid = await ensureNats(url, (line) => lines.push(line), { natsStoreDir: store });
    if (pid) started.push(pid);

    expect(pid).toBeGreaterThan(0);
    expect(await checkNats(url)).toEqual({ answers: true });
    expect(await checkNats(other.url)).toEqual({ answers: true });
    expect(lines.join("\n")).toContain(`NATS at ${url} does not answer`);
  });

  it("says a nats-server runs, but not on this port, when it cannot start one", async () => {
    const url = `nats://127.0.0.1:${await freePort()}`;
    const attempt = ensureNats(url, () => undefined, { natsStoreDir: store, searchPath: "/nonexistent" });

    await expect(attempt).rejects.toThrow(
      new RegExp(
        `^NATS at ${url} does not answer \\(.*\\); a nats-server is running \\(pid [\\d, ]*\\b${other.pid}\\b[\\d, ]*\\) but not on this port, and nats-server is not installed to start one$`,
      ),
    );
  });

  it("says so when the NATS that answers has JetStream off", async () => {
    const port = await freePort();
    const withoutJetStream = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port)], {
      stdio: "ignore",
    });
    started.push(withoutJetStream.pid!);
    const url = `nats://127.0.0.1:${port}`;
    // Until the server listens, the check says it does not answer.
    const found = await waitFor(async () => {
      const finding = await checkNats(url);
      return !finding.answers && finding.problem.includes("does not answer") ? undefined : finding;
    }, "the nats-server without JetStream to listen");

    expect(found).toEqual({
      answers: false,
      problem: `NATS answers at ${url} but JetStream is off; restart that nats-server with -js`,
    });
    await expect(ensureNats(url, () => undefined, { natsStoreDir: store })).rejects.toThrow(
      "JetStream is off",
    );
  });

  it("starts its own redis-server when none answers on the configured port", async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    expect((await checkRedis(url)).answers).toBe(false);

    const pid = await ensureRedis(url, () => undefined);
    if (pid) started.push(pid);

    expect(await checkRedis(url)).toEqual({ answers: true });
  });
});
