/**
 * A test's own `redis-server` or `nats-server` (JetStream on, its store in a temporary folder), on a
 * free port, for tests that stop, restart or pause a server: doing that to the shared servers would
 * break every other test running meanwhile. `stop()` and `start()` keep the port and the JetStream
 * store, as a real restart does.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isReachable } from "./infrastructure.ts";

export interface PrivateServer {
  readonly url: string;
  readonly port: number;
  readonly pid: number | undefined;
  /** Stops the server with `signal` (SIGTERM by default) and resolves once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port (and store), resolving once it accepts connections. */
  start(): Promise<void>;
  /** Stops it for good and removes its files. */
  remove(): Promise<void>;
}

export async function startPrivateRedis(port: number): Promise<PrivateServer> {
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  return startServer("redis-server", args, `redis://127.0.0.1:${port}`, port);
}

export async function startPrivateNats(port: number): Promise<PrivateServer> {
  const store = mkdtempSync(join(tmpdir(), "rda-nats-"));
  const args = ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", store];
  const removeStore = () => rmSync(store, { recursive: true, force: true });
  return startServer("nats-server", args, `nats://127.0.0.1:${port}`, port, /Server is ready/, removeStore);
}

async function startServer(
  command: string,
  args: string[],
  url: string,
  port: number,
  ready?: RegExp,
  removeFiles: () => void = () => undefined,
): Promise<PrivateServer> {
  let child: ChildProcess | undefined;
  const start = async () => {
    const started = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    child = started;
    await whenReady(started, url, ready);
  };
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    running.kill(signal);
    await exited;
  };
  await start();
  return {
    url,
    port,
    get pid() {
      return child?.pid;
    },
    stop,
    start,
    async remove() {
      await stop("SIGKILL");
      removeFiles();
    },
  };
}

/** Resolves once the server logged `ready` (or, without one, accepts TCP connections). */
async function whenReady(child: ChildProcess, url: string, ready: RegExp | undefined): Promise<void> {
  let output = "";
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`${url} exited with ${code}: ${output}`))),
  );
  exited.catch(() => undefined);
  let waiting = true;
  const seen = new Promise<void>((resolve) => {
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4_000);
      if (ready?.test(output)) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    if (!ready) void pollReachable(url, () => waiting).then(resolve);
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${url} not ready in 10 s: ${output}`)), 10_000);
  });
  try {
    await Promise.race([seen, exited, timeout]);
  } finally {
    waiting = false;
    clearTimeout(timer);
  }
}

async function pollReachable(url: string, waiting: () => boolean): Promise<void> {
  while (waiting() && !(await isReachable(url, 200))) await new Promise((resolve) => setTimeout(resolve, 50));
}
