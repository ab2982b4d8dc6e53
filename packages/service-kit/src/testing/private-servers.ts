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

/** A NATS cluster of the test's own: its nodes, and the URL list a client connects with. */
export interface PrivateNatsCluster {
  /** Comma-separated, as NATS_URL takes several servers. */
  readonly url: string;
  /** Each node by its server name (`n1`, `n2`, …), which JetStream names stream leaders by. */
  readonly nodes: ReadonlyMap<string, PrivateServer>;
  remove(): Promise<void>;
}

/**
 * `size` nats-servers routed to each other as one JetStream cluster (each its own store, client and
 * route port), as production's three-node cluster: streams with that many replicas survive the
 * loss of any one node. A node's `stop` and `start` keep its ports and store, as a pod restart does.
 */
export async function startPrivateNatsCluster(
  clientPorts: readonly number[],
  routePorts: readonly number[],
): Promise<PrivateNatsCluster> {
  const routes = routePorts.map((port) => `nats://127.0.0.1:${port}`).join(",");
  const name = `rda-test-${process.pid}`;
  const nodes = new Map<string, PrivateServer>();
  await Promise.all(
    clientPorts.map(async (port, index) => {
      const serverName = `n${index + 1}`;
      const store = mkdtempSync(join(tmpdir(), `rda-nats-${serverName}-`));
      const args = [
        ...["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", store, "-n", serverName],
        ...["--cluster_name", name, "--cluster", `nats://127.0.0.1:${routePorts[index]}`, "--routes", routes],
      ];
      const removeStore = () => rmSync(store, { recursive: true, force: true });
      const url = `nats://127.0.0.1:${port}`;
      nodes.set(
        serverName,
        await startServer("nats-server", args, url, port, /Server is ready/, removeStore),
      );
    }),
  );
  return {
    url: clientPorts.map((port) => `nats://127.0.0.1:${port}`).join(","),
    nodes,
    async remove() {
      await Promise.all([...nodes.values()].map((node) => node.remove()));
    },
  };
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
