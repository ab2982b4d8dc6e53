/**
 * Makes sure the stack's own Redis and NATS (with JetStream) answer at REDIS_URL and NATS_URL before
 * it starts. "Answer" means what the services need: a Redis PING, a NATS connection whose JetStream
 * API answers. A server of the same kind running elsewhere on the host (another port, another
 * network namespace) does not count. When ours does not answer on a local address, it is started on
 * the configured port if installed; otherwise the error says in one sentence what was found.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { pathToFileURL } from "node:url";
import { connectNats, createLogger, jetstreamManager, openRedis } from "@rda/service-kit";

const quiet = createLogger("start", { level: "silent" });
const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
const START_DEADLINE_MS = 15_000;

/** What a check found: nothing wrong, or one sentence saying what is. */
export type Finding = { answers: true } | { answers: false; problem: string };

export interface EnsureOptions {
  /** Where the started nats-server keeps JetStream's files; default a per-port folder in the temp dir. */
  natsStoreDir?: string;
  /** Where to look for redis-server and nats-server; default PATH plus the sbin folders. */
  searchPath?: string;
}

/** Pids of the servers started here (they outlive `pnpm start`, as a system service would). */
export interface Started {
  redis?: number;
  nats?: number;
}

export async function ensureLocalServers(
  redisUrl: string,
  natsUrl: string,
  say: (line: string) => void,
  options: EnsureOptions = {},
): Promise<Started> {
  const redis = await ensureRedis(redisUrl, say, options);
  const nats = await ensureNats(natsUrl, say, options);
  return { ...(redis && { redis }), ...(nats && { nats }) };
}

export async function checkRedis(url: string): Promise<Finding> {
  try {
    const client = await openRedis(url, "start-check", quiet, { connectTimeoutMs: 2_000 });
    client.disconnect();
    return { answers: true };
  } catch (error) {
    return { answers: false, problem: `Redis at ${url} does not answer (${reason(error)})` };
  }
}

export async function checkNats(url: string): Promise<Finding> {
  let connection: Awaited<ReturnType<typeof connectNats>>;
  try {
    connection = await connectNats(url, "start-check", quiet);
  } catch (error) {
    return { answers: false, problem: `NATS at ${url} does not answer (${reason(error)})` };
  }
  try {
    // Asks the server's JetStream API ($JS.API.INFO); throws when JetStream is off for this account.
    await jetstreamManager(connection, { timeout: 2_000 });
    return { answers: true };
  } catch {
    return {
      answers: false,
      problem: `NATS answers at ${url} but JetStream is off; restart that nats-server with -js`,
    };
  } finally {
    await connection.close();
  }
}

/** Returns the pid of the redis-server started here, if one was. */
export async function ensureRedis(url: string, say: (line: string) => void, options: EnsureOptions = {}) {
  const found = await checkRedis(url);
  if (found.answers) return undefined;
  const { hostname, port } = parsed(url, 6379);
  const args = ["--bind", hostname, "--port", String(port), "--save", "", "--appendonly", "no"];
  return startOrExplain("redis-server", args, url, found.problem, checkRedis, say, options);
}

/** Returns the pid of the nats-server started here, if one was. */
export async function ensureNats(url: string, say: (line: string) => void, options: EnsureOptions = {}) {
  const found = await checkNats(url);
  if (found.answers) return undefined;
  if (found.problem.includes("JetStream is off")) throw new Error(found.problem);
  const { hostname, port } = parsed(url, 4222);
  // One folder per port: two nats-servers sharing a JetStream store corrupt each other's streams.
  const storeDir = options.natsStoreDir ?? join(tmpdir(), `nats-server-${port}`);
  mkdirSync(storeDir, { recursive: true });
  const args = ["-a", hostname, "-p", String(port), "-js", "-sd", storeDir];
  return startOrExplain("nats-server", args, url, found.problem, checkNats, say, options);
}

async function startOrExplain(
  program: "redis-server" | "nats-server",
  args: string[],
  url: string,
  problem: string,
  check: (url: string) => Promise<Finding>,
  say: (line: string) => void,
  options: EnsureOptions,
): Promise<number> {
  const { hostname, username, password } = new URL(url.split(",")[0]!.trim());
  if (!LOCAL_HOSTS.has(hostname))
    throw new Error(`${problem}; it is not on this machine, so start it there or change the URL`);
  if (username || password)
    throw new Error(`${problem}; it needs credentials, so start it yourself as configured`);
  const binary = findProgram(program, options.searchPath);
  if (!binary) throw new Error(`${problem}; ${elsewhere(program)}${program} is not installed to start one`);
  say(`${problem}; starting one: ${binary} ${args.join(" ")}`);
  const child = spawn(binary, args, { detached: true, stdio: "ignore" });
  let failedToRun = false;
  child.once("error", () => {
    failedToRun = true;
  });
  child.unref();
  const deadline = Date.now() + START_DEADLINE_MS;
  while (Date.now() < deadline && child.exitCode === null && !failedToRun) {
    if ((await check(url)).answers) return child.pid!;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (child.exitCode === null) child.kill();
  throw new Error(`${problem}; ${elsewhere(program)}the ${program} started on that port did not answer`);
}

/** "a nats-server is running (pid 12) but not on this port, and ": what makes the finding's cause clear. */
function elsewhere(program: string): string {
  const pids = runningPids(program);
  if (pids.length === 0) return `no ${program} is running, and `;
  return `a ${program} is running (pid ${pids.join(", ")}) but not on this port, and `;
}

/** Pids of the processes on this host (as far as /proc shows) whose program is `program`. */
export function runningPids(program: string): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const name = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0")[0] ?? "";
      if (name === program || name.endsWith(`/${program}`)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

function findProgram(program: string, searchPath?: string): string | undefined {
  const dirs = (searchPath ?? `${process.env.PATH ?? ""}${delimiter}/usr/sbin${delimiter}/usr/local/sbin`)
    .split(delimiter)
    .filter(Boolean);
  for (const dir of dirs) {
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

function parsed(url: string, defaultPort: number) {
  const { hostname, port } = new URL(url.split(",")[0]!.trim());
  return { hostname: hostname.replace(/^\[|\]$/g, ""), port: Number(port) || defaultPort };
}

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^cannot reach Redis at \S+: /, "");
}

/**
 * `tsx scripts/local-servers.ts [--check]` (used by .ci/run): the same check for REDIS_URL and
 * NATS_URL (default the local ports); `--check` only reports, without starting anything.
 */
async function main(): Promise<void> {
  const redisUrl = process.env.REDIS_URL || "redis://127.0.0.1:6379";
  const natsUrl = process.env.NATS_URL || "nats://127.0.0.1:4222";
  if (process.argv.includes("--check")) {
    const problems = [await checkRedis(redisUrl), await checkNats(natsUrl)].flatMap((found) =>
      found.answers ? [] : [found.problem],
    );
    for (const problem of problems) console.error(problem);
    process.exitCode = problems.length === 0 ? 0 : 1;
    return;
  }
  await ensureLocalServers(redisUrl, natsUrl, (line) => console.log(line));
  console.log(`Redis answers at ${redisUrl}; NATS with JetStream answers at ${natsUrl}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
