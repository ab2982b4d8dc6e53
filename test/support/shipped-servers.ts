/**
 * Private nats-server and redis-server processes running the configuration this repository ships
 * (deploy/nats, deploy/redis), with passwords injected the way an operator injects them: as the
 * servers' environment (NATS) or rendered into the ACL file by deploy/redis/render-acl.sh (Redis).
 * Each listens on a free port of 127.0.0.1 with its data in a fresh temporary folder, so nothing
 * here touches the shared servers the other tests use.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type NatsConnection, requestRaw } from "@rda/service-kit";
import { freePort, waitFor } from "@rda/service-kit/testing";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SHIPPED = {
  natsConfig: join(ROOT, "deploy", "nats", "nats.conf"),
  redisAclTemplate: join(ROOT, "deploy", "redis", "users.acl"),
  redisAclRenderer: join(ROOT, "deploy", "redis", "render-acl.sh"),
} as const;

/** A password of the documented form: a letter, then letters and digits. */
export const newPassword = () => `p${randomBytes(18).toString("hex")}`;

export interface ShippedServer {
  readonly url: string;
  /** Everything the server logged so far. */
  log(): string;
  stop(): Promise<void>;
}

/** The NATS identities of deploy/nats/auth.conf, each with the variable holding its password. */
export const NATS_IDENTITIES = {
  gateway: "NATS_PASSWORD_GATEWAY",
  billing: "NATS_PASSWORD_BILLING",
  "adapter-posts": "NATS_PASSWORD_ADAPTER_POSTS",
  monitors: "NATS_PASSWORD_MONITORS",
  "adapter-tree": "NATS_PASSWORD_ADAPTER_TREE",
  "adapter-communities": "NATS_PASSWORD_ADAPTER_COMMUNITIES",
  "adapter-users": "NATS_PASSWORD_ADAPTER_USERS",
  portal: "NATS_PASSWORD_PORTAL",
  admin: "NATS_PASSWORD_ADMIN",
  exports: "NATS_PASSWORD_EXPORTS",
} as const;
export type NatsIdentityName = keyof typeof NATS_IDENTITIES;

/**
 * nats-server with deploy/nats/nats.conf, JetStream on; the command line moves it to free ports and
 * a temporary store, as compose's command line names the store. Resolves once it accepts clients.
 */
export async function startShippedNats(passwords: Record<NatsIdentityName, string>): Promise<ShippedServer> {
  const [port, monitorPort] = [await freePort(), await freePort()];
  const store = mkdtempSync(join(tmpdir(), "rda-nats-"));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [user, variable] of Object.entries(NATS_IDENTITIES)) {
    env[variable] = passwords[user as NatsIdentityName];
  }
  const args = ["-c", SHIPPED.natsConfig, "-a", "127.0.0.1", "-p", String(port), "-m", String(monitorPort)];
  const child = spawn("nats-server", [...args, "-js", "-sd", store, "--server_name", "shipped-test"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const server = await ready(child, /Server is ready/, store);
  return { ...server, url: `nats://127.0.0.1:${port}` };
}

/**
 * A request on `subject` from `connection`, as anyone holding its identity could send it: resolves
 * with the server's refusal (`Permissions Violation for Publish to "<subject>"`, which it tells the
 * connection), after checking that no answer came back either.
 */
export async function refusedRequest(connection: NatsConnection, subject: string, payload: unknown) {
  const errors: string[] = [];
  void (async () => {
    for await (const status of connection.status())
      if (status.type === "error") errors.push(String(status.error));
  })();
  const answer = await requestRaw(connection, subject, JSON.stringify(payload), 2_000);
  const refusal = await waitFor(
    () =>
      errors.find((error) => error.includes("Permissions Violation for Publish") && error.includes(subject)),
    `the server refusing a publish to ${subject}`,
    5_000,
  );
  return { answered: answer.ok, refusal };
}

/** The Redis ACL users of deploy/redis/users.acl, each with the variable holding its password. */
export const REDIS_USERS = {
  default: "REDIS_PASSWORD",
  billing: "REDIS_PASSWORD_BILLING",
  gateway: "REDIS_PASSWORD_GATEWAY",
  portal: "REDIS_PASSWORD_PORTAL",
  adapter: "REDIS_PASSWORD_ADAPTER",
  monitors: "REDIS_PASSWORD_MONITORS",
  exports: "REDIS_PASSWORD_EXPORTS",
} as const;
export type RedisUserName = keyof typeof REDIS_USERS;

/**
 * redis-server loading the ACL file that deploy/redis/render-acl.sh writes from the shipped template
 * and these passwords, as compose's redis container does. `url` has no credentials: add a user's.
 */
export async function startShippedRedis(passwords: Record<RedisUserName, string>): Promise<ShippedServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "rda-redis-"));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [user, variable] of Object.entries(REDIS_USERS))
    env[variable] = passwords[user as RedisUserName];
  const aclFile = join(dir, "users.acl");
  execFileSync("sh", [SHIPPED.redisAclRenderer, SHIPPED.redisAclTemplate, aclFile], { env });
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--save",
    "",
    "--appendonly",
    "no",
  ];
  const child = spawn("redis-server", [...args, "--aclfile", aclFile], { stdio: ["ignore", "pipe", "pipe"] });
  const server = await ready(child, /Ready to accept connections/, dir);
  return { ...server, url: `redis://127.0.0.1:${port}/0` };
}

/** Waits for the server's "ready" line; rejects with its output if it exits or takes over 10 s. */
function ready(child: ChildProcess, line: RegExp, dir: string): Promise<Omit<ShippedServer, "url">> {
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      void stop();
      reject(new Error(`${why}:\n${output}`));
    };
    const timer = setTimeout(() => fail("server not ready within 10 s"), 10_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!settled && line.test(output)) {
        settled = true;
        clearTimeout(timer);
        resolve({ log: () => output, stop });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    void exited.then(() => {
      clearTimeout(timer);
      fail("server exited");
    });
  });
}
