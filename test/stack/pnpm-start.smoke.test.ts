/**
 * The README's promise, checked as a user would: `pnpm start` brings the whole stack up as separate
 * processes, a key from `pnpm admin keys create --json` gets a 200 page of posts through gateway →
 * NATS → adapter → simulator, its output piped to a program is one JSON object per line (what `jq`
 * reads), and Ctrl-C (SIGINT) stops every service.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { freePort, testNamespace, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrowserlessClient, linkIn } from "../../services/portal/test/support/client.ts";
import { ROOT, runAdmin } from "./support.ts";

const READY_LINE = /API ready at (http:\/\/\S+)/;
const PORTAL_LINE = /developer portal at (http:\/\/\S+) \(captured mail at (http:\/\/\S+);/;
const PAYMENTS_LINE = /card payments by the payments simulator at (http:\/\/\S+)\)/;

describe("pnpm start", () => {
  let stack: ChildProcess;
  let output = "";
  /** What went to stdout, line by line: the stream a `| jq` would read. */
  const stdoutLines: string[] = [];
  let apiUrl = "";
  let env: NodeJS.ProcessEnv;
  let simUrl = "";
  let mcpUrl = "";
  let portalUrl = "";
  let inboxUrl = "";
  let paymentsUrl = "";

  beforeAll(async () => {
    const ports = await Promise.all(Array.from({ length: 8 }, () => freePort()));
    const [port, simPort, mcpPort, portalPort, smtpPort, mailUiPort, paymentsPort, internalPort] =
      ports.map(String);
    simUrl = `http://127.0.0.1:${simPort}`;
    mcpUrl = `http://127.0.0.1:${mcpPort}`;
    env = {
      ...process.env,
      PORT: port,
      SIM_PORT: simPort,
      MCP_PORT: mcpPort,
      GATEWAY_INTERNAL_PORT: internalPort,
      PORTAL_PORT: portalPort,
      MAIL_SMTP_PORT: smtpPort,
      MAIL_UI_PORT: mailUiPort,
      PAYMENTS_SIM_PORT: paymentsPort,
      STRIPE_SECRET_KEY: "",
      STRIPE_WEBHOOK_SECRET: "",
      STRIPE_API_URL: "",
      SMTP_URL: "",
      PORTAL_URL: "",
      TOPUP_URL: "",
      HEALTH_PORT: "0",
      EXPORTS_PORT: "0",
      // Any free ports: the defaults (9200-9209) may belong to a stack running beside the tests.
      METRICS_PORT: "0",
      RDA_NAMESPACE: testNamespace("start"),
      UPSTREAM_URL: "",
      LOG_LEVEL: "warn",
    };
    // --silent: without it pnpm prints its own "> reddit-data-api@ start" header first (README).
    stack = spawn("pnpm", ["--silent", "start"], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    apiUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`stack not ready after 120 s:\n${output}`)), 120_000);
      for (const stream of [stack.stdout!, stack.stderr!]) {
        createInterface({ input: stream }).on("line", (line) => {
          output += `${line}\n`;
          if (stream === stack.stdout) stdoutLines.push(line);
          const ready = READY_LINE.exec(line);
          const portal = PORTAL_LINE.exec(line);
          const payments = PAYMENTS_LINE.exec(line);
          if (ready && portal && payments) {
            [portalUrl, inboxUrl, paymentsUrl] = [portal[1]!, portal[2]!, payments[1]!];
            clearTimeout(timer);
            resolve(ready[1]!);
          }
        });
      }
      stack.once("exit", (code) => reject(new Error(`stack exited with ${code} before ready:\n${output}`)));
    });
  }, 150_000);

  afterAll(() => {
    if (stack.exitCode === null) process.kill(-stack.pid!, "SIGKILL");
  });

  it("writes one JSON object per line when piped, each naming its service, so jq can read it", () => {
    expect(stdoutLines.length).toBeGreaterThan(10);
    const parsed = stdoutLines.map((line) => {
      const value: unknown = JSON.parse(line);
      expect(typeof value === "object" && value !== null && !Array.isArray(value), line).toBe(true);
      return value as { service?: string; msg?: string; started?: string };
    });
    expect(parsed.filter((line) => typeof line.service !== "string")).toEqual([]);
    expect(parsed.find((line) => line.msg?.startsWith("API ready at"))?.service).toBe("stack");
    // Each line is the supervisor's or a service's it started.
    const started = parsed.flatMap((line) => (line.started ? [line.started] : []));
    expect(started).toEqual(expect.arrayContaining(["gateway", "billing", "portal", "mail"]));
    const known = new Set(["stack", ...started]);
    expect(parsed.filter((line) => !known.has(line.service!))).toEqual([]);
  });

  it("serves a page of posts to a key made with pnpm admin keys create --json", async () => {
    const created = runAdmin(["keys", "create", "--label", "smoke", "--json"], env);
    expect(created.status, created.stderr).toBe(0);
    const { key, credits } = JSON.parse(created.stdout) as { key: string; credits: number };
    const subreddits = (await (await fetch(`${simUrl}/api/subreddits/search?limit=1`)).json()) as {
      data: { display_name: string }[];
    };
    const subreddit = subreddits.data[0]!.display_name;
    const response = await fetch(`${apiUrl}/v1/posts?subreddit=${subreddit}&limit=5`, {
      headers: { "x-api-key": key },
    });
    const body = (await response.json()) as {
      data: { subreddit: string }[];
      _service: Record<string, unknown>;
    };
    expect(response.status).toBe(200);
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.data.every((post) => post.subreddit.toLowerCase() === subreddit.toLowerCase())).toBe(true);
    expect(body._service).toMatchObject({ credits_used: 1, credits_remaining: credits - 1, has_more: true });
    expect(response.headers.get("x-credits-used")).toBe("1");
    expect(response.headers.get("x-credits-remaining")).toBe(String(credits - 1));
  });

  it("runs the exports service: an export is quoted for free", async () => {
    const created = runAdmin(["keys", "create", "--label", "smoke-export", "--json"], env);
    const { key, credits } = JSON.parse(created.stdout) as { key: string; credits: number };
    const response = await fetch(`${apiUrl}/v1/exports`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ kind: "posts", subreddit: "dataisbeautiful", after: "40d", before: "10d" }),
    });
    const body = (await response.json()) as { data: { state: string; quote: { estimated_pages: number } } };
    expect(response.status, JSON.stringify(body)).toBe(201);
    expect(body.data.state).toBe("quoted");
    expect(body.data.quote.estimated_pages).toBeGreaterThan(0);
    expect(response.headers.get("x-credits-remaining")).toBe(String(credits));
  });

  it("runs the developer portal, whose sign-up email lands in the local capture inbox", async () => {
    const email = `smoke-${Date.now()}@example.com`;
    const browser = new BrowserlessClient(portalUrl);
    expect((await browser.submit("/signup", "/signup", { email })).status).toBe(200);
    const mail = await waitFor(async () => {
      const messages = (await (await fetch(`${inboxUrl}/api/email`)).json()) as {
        to: { address: string }[];
        text: string;
      }[];
      return messages.find((message) => message.to.some((to) => to.address === email));
    }, "the sign-up email in the capture inbox");
    const confirm = await browser.get(linkIn(mail!.text));
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain(email);
  });

  it("runs the payments simulator in Stripe's place, answering the portal's key and no other", async () => {
    expect(paymentsUrl).toBe(`http://127.0.0.1:${env.PAYMENTS_SIM_PORT}`);
    expect((await fetch(`${paymentsUrl}/readyz`)).status).toBe(200);
    const unauthorised = await fetch(`${paymentsUrl}/v1/checkout/sessions/cs_test_00000000`, {
      headers: { authorization: "Bearer sk_test_someone_else" },
    });
    expect(unauthorised.status).toBe(401);
  });

  it("sends people out of credits to the portal's billing page", async () => {
    const created = runAdmin(["keys", "create", "--credits", "0", "--json"], env);
    const { key } = JSON.parse(created.stdout) as { key: string };
    const response = await fetch(`${apiUrl}/v1/subreddits/search?q=a`, { headers: { "x-api-key": key } });
    expect(response.status).toBe(402);
    expect(((await response.json()) as { error: string }).error).toContain(`${portalUrl}/billing`);
  });

  it("stops every service on Ctrl-C: their ports close", async () => {
    // A terminal's Ctrl-C signals the whole foreground group; pnpm exits at once, the runner then
    // stops each service with SIGTERM and waits for it.
    process.kill(-stack.pid!, "SIGINT");
    for (const url of [apiUrl, simUrl, mcpUrl, portalUrl, inboxUrl, paymentsUrl]) {
      await waitFor(async () => !(await isListening(url)), `${url} to stop listening`, 30_000);
    }
    await waitFor(() => output.includes('"msg":"stopping every service"'), "the runner's stop line");
  }, 40_000);
});

function isListening(url: string): Promise<boolean> {
  return fetch(`${url}/livez`).then(
    () => true,
    () => false,
  );
}
