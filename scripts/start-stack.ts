/**
 * `pnpm start`: the whole local stack in the foreground. Each service runs as its own Node process
 * with its log lines pretty-printed behind its name in a terminal, and one JSON object per line when
 * piped (see stack-logs.ts); the upstream simulator runs unless UPSTREAM_URL is set, a local capture inbox
 * (MailDev) for the portal's mail unless SMTP_URL is set, and the payments simulator, with a local
 * test key and signing secret given to it and to the portal, unless STRIPE_SECRET_KEY is set. Ready when the gateway's and the portal's
 * /readyz answer 200; Ctrl-C stops every service cleanly, and if this supervisor dies any other way
 * its services stop too (exit-with-supervisor.ts).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ensureLocalServers } from "./local-servers.ts";
import { buildPythonWheel } from "./pack-python-client.mjs";
import { packSdk } from "./pack-sdk.mjs";
import { chooseLogFormat, type Level, type LogFormat, serviceLine, supervisorLine } from "./stack-logs.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Start order: what others depend on first; the gateway last, since its readiness means "up". */
const SERVICE_ORDER = [
  "upstream-sim",
  "payments-sim",
  "billing",
  "adapter-posts",
  "adapter-tree",
  "adapter-communities",
  "adapter-users",
  "monitors",
  "mcp",
  "exports",
  "portal",
  "gateway",
] as const;
const COLOURS = [36, 33, 35, 32, 34, 96, 93, 95, 91, 92, 94];
const STOP_GRACE_MS = 15_000;
const EXIT_WITH_SUPERVISOR = join(ROOT, "scripts", "exit-with-supervisor.ts");

const running = new Map<string, ChildProcess>();
let stopping = false;
const chosenFormat = chooseLogFormat(process.env.LOG_FORMAT, process.stdout.isTTY === true);

/** The supervisor's own messages: info on stdout, errors on stderr, each one line in the log format. */
function say(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  const line = supervisorLine(chosenFormat ?? "json", level, message, fields);
  (level === "error" ? process.stderr : process.stdout).write(`${line}\n`);
}

async function main(): Promise<void> {
  const format = chosenFormat;
  if (format === undefined)
    throw new Error(`LOG_FORMAT must be pretty or json, got '${process.env.LOG_FORMAT}'`);
  const env = stackEnvironment();
  await ensureLocalServers(env.REDIS_URL!, env.NATS_URL!, (line) => say("info", line));
  // The portal serves the SDK's tarball (npm install <portal>/sdk/rda-sdk-<version>.tgz).
  say("info", `the SDK for the portal to serve: ${packSdk()}`);
  const wheel = buildPythonWheel(undefined, (line: string) => say("info", line));
  if (wheel) say("info", `the Python client for the portal to serve: ${wheel}`);
  const services = SERVICE_ORDER.filter((name) => existsSync(join(ROOT, "services", name, "src", "main.ts")));
  const simulatedPayments = !process.env.STRIPE_SECRET_KEY;
  const toStart = services.filter(
    (name) =>
      !(name === "upstream-sim" && process.env.UPSTREAM_URL) &&
      !(name === "payments-sim" && !simulatedPayments),
  );
  const captureMail = !process.env.SMTP_URL;
  if (captureMail) startCaptureInbox(env, COLOURS.at(-1)!, format);
  for (const [index, name] of toStart.entries()) {
    startService(name, env, COLOURS[index % COLOURS.length]!, format);
    // The portal's notices worker: its own process, with the portal's settings (notices-worker.ts).
    if (name === "portal") {
      const entry = join(ROOT, "services", "portal", "src", "notices-main.ts");
      // Its own ports beside the portal's (whose METRICS_PORT it would otherwise share), unless the
      // environment names them for every service (0 in tests: any free port).
      const noticesEnv = {
        ...env,
        HEALTH_PORT: env.HEALTH_PORT || "9112",
        METRICS_PORT: env.METRICS_PORT || "9212",
      };
      startProcess("notices", entry, [], noticesEnv, COLOURS[(index + 1) % COLOURS.length]!, format);
    }
  }
  process.once("SIGINT", () => void stopAll(0));
  process.once("SIGTERM", () => void stopAll(0));
  process.once("SIGHUP", () => void stopAll(0));
  const gatewayUrl = `http://${displayHost(env.HOST!)}:${env.PORT}`;
  const portalUrl = `http://${displayHost(env.PORTAL_HOST || env.HOST!)}:${env.PORTAL_PORT}`;
  await waitUntilReady(`${gatewayUrl}/readyz`, "gateway");
  await waitUntilReady(`${portalUrl}/readyz`, "portal");
  const upstream = process.env.UPSTREAM_URL
    ? `upstream ${env.UPSTREAM_URL}`
    : `simulated upstream ${env.UPSTREAM_URL}`;
  const mail = captureMail
    ? `captured mail at http://127.0.0.1:${env.MAIL_UI_PORT}`
    : "mail through SMTP_URL";
  const payments = simulatedPayments
    ? `card payments by the payments simulator at ${env.STRIPE_API_URL}`
    : "card payments by Stripe";
  say(
    "info",
    `API ready at ${gatewayUrl} (MCP at ${gatewayUrl}/mcp, ${upstream}); developer portal at ${env.PORTAL_URL} (${mail}; ${payments}); Ctrl-C stops it`,
  );
}

/** The documented defaults (docs/operations.md#environment), plus the URLs by which the services find each other on this machine. */
function stackEnvironment(): NodeJS.ProcessEnv {
  const given = process.env;
  const port = given.PORT || "8080";
  const simPort = given.SIM_PORT || "8070";
  const mcpPort = given.MCP_PORT || "8090";
  const portalPort = given.PORTAL_PORT || "8060";
  const internalPort = given.GATEWAY_INTERNAL_PORT || "8081";
  const portalUrl = given.PORTAL_URL || `http://127.0.0.1:${portalPort}`;
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
    GATEWAY_INTERNAL_PORT: internalPort,
    // The MCP service and the portal's monitor and export pages call the gateway's internal listener.
    GATEWAY_URL: given.GATEWAY_URL || `http://127.0.0.1:${internalPort}`,
    // Made for this run, never written anywhere: the gateway's internal credentials, the portal's
    // credentials at the gateway (a secret of its own), the portal's OAuth signing key and the key
    // sealing notice webhooks' secrets (docs/operations.md#environment; a webhook saved in one run
    // must be saved again in the next).
    GATEWAY_INTERNAL_SECRET: given.GATEWAY_INTERNAL_SECRET || randomBytes(32).toString("base64url"),
    PORTAL_GATEWAY_SECRET: given.PORTAL_GATEWAY_SECRET || randomBytes(32).toString("base64url"),
    OAUTH_SIGNING_KEY: given.OAUTH_SIGNING_KEY || newSigningKeyPem(),
    // Monitors' webhook secrets likewise: set it to keep a monitor's webhook across runs (without
    // it, a monitor saved in an earlier run logs that its secret cannot be read until rotated).
    WEBHOOK_SEALING_KEY: given.WEBHOOK_SEALING_KEY || randomBytes(32).toString("base64"),
    BUILD_COMMIT: given.BUILD_COMMIT || currentCommit(),
    PORTAL_PORT: portalPort,
    PORTAL_URL: portalUrl,
    PUBLIC_API_URL: given.PUBLIC_API_URL || `http://127.0.0.1:${port}`,
    MAIL_SMTP_PORT: given.MAIL_SMTP_PORT || "1025",
    MAIL_UI_PORT: given.MAIL_UI_PORT || "8025",
    // Export files of this machine's runs (docs/operations.md#environment), kept out of git.
    EXPORTS_DIR: given.EXPORTS_DIR || join(ROOT, "data", "exports"),
    ...(given.STRIPE_SECRET_KEY ? {} : simulatedStripe(given, portalPort)),
  };
}

/**
 * No STRIPE_SECRET_KEY: the payments simulator plays Stripe, with a test key and a signing secret
 * made for this run, given to both sides; the portal's SDK is pointed at it and its webhooks go to
 * the portal.
 */
function simulatedStripe(given: NodeJS.ProcessEnv, portalPort: string): NodeJS.ProcessEnv {
  const port = given.PAYMENTS_SIM_PORT || "8075";
  const local = randomBytes(12).toString("hex");
  return {
    PAYMENTS_SIM_PORT: port,
    STRIPE_SECRET_KEY: `sk_test_local_${local}`,
    STRIPE_WEBHOOK_SECRET: `whsec_local_${local}`,
    STRIPE_API_URL: `http://127.0.0.1:${port}`,
    PAYMENTS_SIM_WEBHOOK_URL:
      given.PAYMENTS_SIM_WEBHOOK_URL || `http://127.0.0.1:${portalPort}/stripe/webhook`,
  };
}

/** An EC P-256 private key in PEM, as OAUTH_SIGNING_KEY takes it. */
function newSigningKeyPem(): string {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return privateKey.export({ format: "pem", type: "pkcs8" }).toString();
}

/** The checkout's commit for the services' build info; "unknown" outside a git work tree. */
function currentCommit(): string {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, stdio: "pipe" });
    return String(commit).trim() || "unknown";
  } catch {
    return "unknown";
  }
}

function startService(name: string, env: NodeJS.ProcessEnv, colour: number, format: LogFormat): void {
  startProcess(name, join(ROOT, "services", name, "src", "main.ts"), [], env, colour, format);
}

/**
 * The local capture inbox: MailDev keeps every message the portal sends and shows it on a web page
 * (MAIL_UI_PORT), with a JSON API at /api/email; the portal sends to it on MAIL_SMTP_PORT.
 */
function startCaptureInbox(env: NodeJS.ProcessEnv, colour: number, format: LogFormat): void {
  const cli = fileURLToPath(new URL("./bin/maildev.js", import.meta.resolve("maildev")));
  const ports = ["--smtp", env.MAIL_SMTP_PORT!, "--web", env.MAIL_UI_PORT!];
  startProcess("mail", cli, [...ports, "--ip", "127.0.0.1", "--web-ip", "127.0.0.1"], env, colour, format);
}

function startProcess(
  name: string,
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  colour: number,
  format: LogFormat,
): void {
  // Own process group: a terminal's Ctrl-C reaches only this runner, which then stops each service
  // once with SIGTERM (a second signal would make a service skip its graceful shutdown). The stdin
  // pipe is the service's lifeline: it closes when this runner dies, and the service then stops.
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--import", EXIT_WITH_SUPERVISOR, entry, ...args],
    {
      cwd: ROOT,
      env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    },
  );
  const show = serviceLine(format, name, colour);
  for (const [stream, level] of [
    [child.stdout, "info"],
    [child.stderr, "error"],
  ] as const) {
    createInterface({ input: stream }).on("line", (line) => process.stdout.write(`${show(line, level)}\n`));
  }
  child.once("exit", (code, signal) => onServiceExit(name, code, signal));
  running.set(name, child);
  say("info", `started ${name} (pid ${child.pid})`, { started: name, pid: child.pid });
}

function onServiceExit(name: string, code: number | null, signal: NodeJS.Signals | null): void {
  running.delete(name);
  if (stopping) return;
  say("error", `${name} exited (${signal ?? `code ${code}`}); stopping the stack`);
  void stopAll(1);
}

async function waitUntilReady(url: string, name: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (stopping) return;
    const ready = await fetch(url)
      .then((response) => response.ok)
      .catch(() => false);
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  say("error", `the ${name} was not ready at ${url} after ${timeoutMs / 1000} s; stopping`);
  await stopAll(1);
}

async function stopAll(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  say("info", "stopping every service");
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
  say("error", error instanceof Error ? error.message : String(error));
  void stopAll(1);
});
