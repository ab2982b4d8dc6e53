/**
 * The portal process as an operator runs it, configured only by its environment: a Redis that wants a
 * password (its own database number), an SMTP server that wants a login, an https public address.
 * Everything a developer does must work, and the https address must make the cookies Secure.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { buildSubjects } from "@rda/contracts";
import { openRedis, type Redis, redisKeys } from "@rda/service-kit";
import {
  type CaptureInbox,
  connectTestNats,
  deleteNamespaceKeys,
  freePort,
  isReachable,
  silentLogger,
  startCaptureInbox,
  testNamespace,
  testNatsUrl,
  testRedisUrl,
  waitFor,
} from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Billing, billingSettingsFromEnv, startBilling } from "../../billing/src/index.ts";
import { BrowserlessClient, csrfTokenOf, linkIn } from "./support/client.ts";

const REDIS_PASSWORD = randomBytes(12).toString("hex");
const SMTP_USER = "portal";
const SMTP_PASSWORD = randomBytes(12).toString("hex");
const namespace = testNamespace("portal-env");

let privateRedis: ChildProcess;
let privateRedisUrl: string;
let inbox: CaptureInbox;
let billing: Billing;
let ledgerRedis: Redis;
let nats: Awaited<ReturnType<typeof connectTestNats>>;
let portal: ChildProcess;
let portalUrl: string;
let portalLog = "";

beforeAll(async () => {
  const redisPort = await freePort();
  privateRedis = spawn(
    "redis-server",
    ["--port", String(redisPort), "--bind", "127.0.0.1", "--requirepass", REDIS_PASSWORD, "--save", ""],
    { stdio: "ignore" },
  );
  privateRedisUrl = `redis://:${REDIS_PASSWORD}@127.0.0.1:${redisPort}/3`;
  await waitFor(() => isReachable(privateRedisUrl), "the private Redis");
  inbox = await startCaptureInbox({ user: SMTP_USER, pass: SMTP_PASSWORD });
  // Billing (the key owner) runs on the usual test servers: the portal reaches it over NATS only.
  [nats, ledgerRedis] = await Promise.all([
    connectTestNats(),
    openRedis(testRedisUrl(), "portal-env", silentLogger()),
  ]);
  billing = await startBilling({
    nats,
    redis: ledgerRedis,
    subjects: buildSubjects(namespace),
    keys: redisKeys(namespace),
    logger: silentLogger(),
    settings: billingSettingsFromEnv({}),
  });
  const port = await freePort();
  portalUrl = `http://127.0.0.1:${port}`;
  portal = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "..", "src", "main.ts")], {
    env: {
      ...process.env,
      PORTAL_PORT: String(port),
      PORTAL_HOST: "127.0.0.1",
      PORTAL_URL: "https://portal.example.test",
      PUBLIC_API_URL: "https://api.example.test",
      REDIS_URL: privateRedisUrl,
      NATS_URL: testNatsUrl(),
      RDA_NAMESPACE: namespace,
      SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${inbox.smtpPort}`,
      MAIL_FROM: "Example API <portal@example.test>",
      LOG_LEVEL: "info",
      // Any free port: the default (9208) may belong to a stack running beside the tests.
      METRICS_PORT: "0",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const stream of [portal.stdout!, portal.stderr!]) stream.on("data", (chunk) => (portalLog += chunk));
  await waitFor(
    () =>
      fetch(`${portalUrl}/readyz`).then(
        (response) => response.ok,
        () => false,
      ),
    "the portal process to be ready",
    30_000,
  );
}, 60_000);

afterAll(async () => {
  if (portal?.exitCode === null) portal.kill("SIGKILL");
  await billing?.stop();
  await inbox?.stop();
  await deleteNamespaceKeys(ledgerRedis, namespace);
  ledgerRedis?.disconnect();
  await nats?.close();
  privateRedis?.kill("SIGKILL");
});

describe("the portal process configured by its environment", () => {
  it("signs a developer up through an authenticated SMTP server, with Secure cookies for its https address", async () => {
    const email = `env-${randomBytes(4).toString("hex")}@example.com`;
    const client = new BrowserlessClient(portalUrl);
    expect((await client.submit("/signup", "/signup", { email })).status).toBe(200);
    const [mail] = await inbox.waitForMessages(email);
    const link = linkIn(mail!.text);
    expect(link.startsWith("https://portal.example.test/auth?token=")).toBe(true);
    const { pathname, search } = new URL(link);
    const confirm = await client.get(`${pathname}${search}`);
    const signedIn = await client.post("/auth", {
      _csrf: csrfTokenOf(confirm.body),
      token: new URL(link).searchParams.get("token")!,
    });
    expect(signedIn.status).toBe(303);
    const session = signedIn.headers.getSetCookie().find((line) => line.startsWith("__Host-rda_session="));
    expect(session).toMatch(/; Secure/i);
    expect(session).toMatch(/; HttpOnly/i);
    expect(session).toMatch(/; Path=\//i);
    expect(signedIn.headers.get("strict-transport-security")).toContain("max-age=");

    const posted = await client.submit("/keys", "/keys", { label: "from env" });
    expect(posted.status).toBe(303);
    const created = await client.follow(posted);
    expect(created.status).toBe(200);
    expect(created.body).toContain("https://api.example.test/v1/posts");
  });

  it("keeps its accounts and sessions in the Redis of REDIS_URL, under the namespace", async () => {
    const own = await openRedis(privateRedisUrl, "portal-env-check", silentLogger());
    try {
      const keys = await own.keys(`${namespace}:rda:portal:*`);
      expect(keys.some((key) => key.includes(":portal:account:{acct_"))).toBe(true);
      expect(keys.some((key) => key.includes(":portal:session:"))).toBe(true);
    } finally {
      own.disconnect();
    }
    expect(await ledgerRedis.keys(`${namespace}:rda:portal:*`)).toEqual([]);
  });

  it("stops cleanly on SIGTERM and never logged a password", async () => {
    portal.kill("SIGTERM");
    const [code] = await new Promise<[number | null]>((resolve) => portal.once("exit", (c) => resolve([c])));
    expect(code).toBe(0);
    expect(portalLog).toContain("stopped");
    expect(portalLog).not.toContain(REDIS_PASSWORD);
    expect(portalLog).not.toContain(SMTP_PASSWORD);
  });
});
