/**
 * The browser-facing security headers, checked in one place on every route the portal serves (walked
 * from its own route table, signed out and signed in, so a new route cannot be missed) and on the
 * gateway's API reference, including their error pages: 400, 403, 404, 405, 413, the OAuth server's
 * own error page and JSON. Each answer must carry:
 * - a Content-Security-Policy that forbids framing (`frame-ancestors 'none'`), and X-Frame-Options;
 * - Referrer-Policy `no-referrer` (sign-in links and OAuth codes travel in URLs);
 * - `Cache-Control: no-store` (static files excepted: the portal's stylesheet and scripts are the same
 *   for everyone and cached for an hour).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrowserlessClient, csrfTokenOf, linkIn } from "../../services/portal/test/support/client.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ payments: true });
}, 90_000);
afterAll(async () => stack?.stop());

interface Checked {
  readonly what: string;
  readonly status: number;
  readonly headers: Headers;
}

function expectSecurityHeaders({ what, status, headers }: Checked, options: { cached?: boolean } = {}) {
  const csp = headers.get("content-security-policy") ?? "";
  expect(csp, `${what} (${status}): CSP`).toContain("frame-ancestors 'none'");
  expect(csp, `${what} (${status}): CSP`).toContain("default-src 'self'");
  expect(headers.get("x-frame-options"), `${what} (${status}): X-Frame-Options`).toBe("DENY");
  expect(headers.get("referrer-policy"), `${what} (${status}): Referrer-Policy`).toBe("no-referrer");
  expect(headers.get("x-content-type-options"), `${what} (${status})`).toBe("nosniff");
  if (options.cached) expect(headers.get("cache-control"), what).toMatch(/max-age=\d+/);
  else expect(headers.get("cache-control"), `${what} (${status}): Cache-Control`).toBe("no-store");
}

/** A concrete URL for a route pattern: parameters filled with values of the right shape. */
function concrete(pattern: string): string {
  return pattern
    .replace(":id", "key_0000000000000000")
    .replace(":uid", "unknown-interaction")
    .replace(":grantId", "unknown-grant")
    .replace("*", "portal.css");
}

async function signedIn(): Promise<BrowserlessClient> {
  const portal = stack.portal!;
  const email = `headers-${randomBytes(4).toString("hex")}@example.com`;
  const client = new BrowserlessClient(portal.url);
  await client.submit("/signup", "/signup", { email });
  const [mail] = await portal.inbox.waitForMessages(email);
  const link = linkIn(mail!.text);
  const confirm = await client.get(link);
  const answer = await client.post("/auth", {
    _csrf: csrfTokenOf(confirm.body),
    token: new URL(link).searchParams.get("token")!,
  });
  expect(answer.status).toBe(303);
  return client;
}

async function call(client: BrowserlessClient | undefined, method: string, path: string): Promise<Checked> {
  const url = new URL(path, stack.portal!.url);
  const headers: Record<string, string> = client
    ? { cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join("; ") }
    : {};
  const body = method === "POST" ? "" : undefined;
  if (body !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
  const response = await fetch(url, { method, headers, body, redirect: "manual" });
  await response.arrayBuffer();
  return {
    what: `${method} ${path}${client ? " (signed in)" : ""}`,
    status: response.status,
    headers: response.headers,
  };
}

describe("security headers on every portal answer", () => {
  it("walks every route, signed out and signed in, forms without their token included", async () => {
    const routes = stack.portal!.routes.filter((route) => route.method !== "HEAD");
    // The route table is the portal's own: the pages, the forms, the OAuth server, the webhook.
    for (const expected of ["/keys", "/keys/:id/secret", "/oauth/token", "/register", "/stripe/webhook"]) {
      expect(routes.map((route) => route.url)).toContain(expected);
    }
    const client = await signedIn();
    const statuses = new Set<number>();
    for (const route of routes) {
      for (const who of [undefined, client]) {
        const answer = await call(who, route.method, concrete(route.url));
        statuses.add(answer.status);
        expectSecurityHeaders(answer, { cached: route.url.startsWith("/static/") && answer.status === 200 });
      }
    }
    // The walk met pages, redirects and the error pages: 200, 303, 400, 401, 403, 404.
    for (const status of [200, 303, 400, 401, 403, 404]) expect([...statuses]).toContain(status);
  });

  it("puts them on the error pages too: 404, 405, 400, 413, and the OAuth server's refusals", async () => {
    const portal = stack.portal!.url;
    const client = await signedIn();
    const answers: Checked[] = [];
    const check = async (
      what: string,
      request: Promise<Response | { status: number; headers: Headers }>,
      status: number,
    ) => {
      const response = await request;
      if (response instanceof Response) await response.arrayBuffer();
      expect(response.status, what).toBe(status);
      answers.push({ what, status: response.status, headers: response.headers });
    };
    await check("unknown page", fetch(`${portal}/no-such-page`), 404);
    await check("a form sent to an unknown page", client.submit("/keys", "/no-such-page", {}), 405);
    await check("a form without its token", fetch(`${portal}/no-such-page`, { method: "POST" }), 403);
    await check("bad period", fetch(`${portal}/keys/key_0000000000000000/usage.json?days=0`), 400);
    await check(
      "body too large",
      fetch(`${portal}/keys`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join("; "),
        },
        body: `label=${"x".repeat(40_000)}`,
      }),
      413,
    );
    await check(
      "unreadable form",
      fetch(`${portal}/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{",
      }),
      400,
    );
    await check(
      "authorization without PKCE",
      fetch(`${portal}/oauth/authorize?client_id=x&response_type=code`),
      400,
    );
    const pkce = "code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256";
    await check(
      "OAuth error page (unknown client)",
      fetch(`${portal}/oauth/authorize?client_id=nobody&response_type=code&${pkce}`),
      400,
    );
    await check(
      "OAuth JSON error (bad registration)",
      fetch(`${portal}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      }),
      400,
    );
    await check("OAuth discovery", fetch(`${portal}/.well-known/oauth-authorization-server`), 200);
    for (const answer of answers) expectSecurityHeaders(answer);
  });
});

describe("security headers on the gateway's API reference", () => {
  it("marks /docs, its script, its 404s and the OpenAPI document", async () => {
    const gateway = stack.gatewayUrl;
    for (const [path, status] of [
      ["/docs", 301],
      ["/docs/", 200],
      ["/docs/js/scalar.js", 200],
      ["/docs/no-such-file", 404],
    ] as const) {
      const response = await fetch(`${gateway}${path}`, { redirect: "manual" });
      await response.arrayBuffer();
      expect(response.status, path).toBe(status);
      expectSecurityHeaders({ what: path, status: response.status, headers: response.headers });
    }
    for (const path of ["/openapi.json", "/v1/no-such-endpoint", "/livez"]) {
      const response = await fetch(`${gateway}${path}`);
      await response.arrayBuffer();
      expect(response.headers.get("x-frame-options"), path).toBe("DENY");
      expect(response.headers.get("referrer-policy"), path).toBe("no-referrer");
      expect(response.headers.get("cache-control"), path).toBe("no-store");
    }
  });
});
