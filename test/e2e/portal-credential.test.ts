/**
 * The developer portal's credential at the gateway (packages/service-kit/src/gateway-credentials.ts,
 * services/gateway/src/http/authenticate.ts), over real HTTP against the whole stack and the
 * monitors service: it opens the portal's monitor routes on the internal listener for a key of the
 * account it names, with the key's own rate limit and `Idempotency-Key`; and it is refused on the
 * public port, on a data route, on pulling items and on /v1/account, for another account's key, an
 * operator's key or a revoked key, when signed with the MCP service's secret, and when stale.
 */
import { randomBytes } from "node:crypto";
import { createPortalCredentials, type PortalCaller } from "@rda/service-kit";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningMonitors } from "../../services/monitors/src/index.ts";
import { createPortalBilling, type PortalBilling } from "../../services/portal/src/billing-client.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { startMonitorsBeside } from "./monitor-webhooks.support.ts";

let stack: Stack;
let monitors: RunningMonitors;
let billing: PortalBilling;
const portalSecret = () => stack.environment.PORTAL_GATEWAY_SECRET!;
const account = () => `acct_${randomBytes(8).toString("hex")}`;

beforeAll(async () => {
  stack = await startStack();
  monitors = await startMonitorsBeside(stack);
  billing = createPortalBilling({ nats: stack.nats, subjects: stack.subjects, timeoutMs: 5_000 });
}, 60_000);
afterAll(async () => {
  await monitors?.stop();
  await stack?.stop();
});

/** A key of a new account, as the portal creates one for a signed-in person. */
async function accountKey(accountId = account()): Promise<PortalCaller> {
  const created = await billing.createKey(accountId, "portal-credential");
  if (!created.ok || created.value.outcome !== "created") throw new Error("cannot create the key");
  return { keyId: created.value.id, accountId };
}

async function call(
  base: string,
  credential: string,
  method: string,
  path: string,
  extra: { body?: unknown; idempotencyKey?: string } = {},
) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${credential}`,
      ...(extra.body === undefined ? {} : { "content-type": "application/json" }),
      ...(extra.idempotencyKey === undefined ? {} : { "idempotency-key": extra.idempotencyKey }),
    },
    body: extra.body === undefined ? undefined : JSON.stringify(extra.body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON bodies by path.
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

const mint = (caller: PortalCaller, secret = portalSecret()) => createPortalCredentials(secret).mint(caller);
const MONITOR = { kind: "post", subreddit: "pics", interval_seconds: 60 };

describe("the portal's credential", () => {
  it("opens the portal's monitor routes on the internal listener, with the key's Idempotency-Key", async () => {
    const caller = await accountKey();
    const internal = stack.gatewayInternalUrl;
    const estimate = await call(internal, await mint(caller), "POST", "/v1/monitors/estimate", {
      body: MONITOR,
    });
    expect(estimate.status).toBe(200);
    expect(estimate.body.data.backfill_estimate).toMatchObject({ max_credits: 0 });
    expect((await call(internal, await mint(caller), "GET", "/v1/monitors")).body.data.monitors).toEqual([]);
    const idempotencyKey = `form-${randomBytes(8).toString("hex")}`;
    const first = await call(internal, await mint(caller), "POST", "/v1/monitors", {
      body: MONITOR,
      idempotencyKey,
    });
    const again = await call(internal, await mint(caller), "POST", "/v1/monitors", {
      body: MONITOR,
      idempotencyKey,
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.data.monitor.id).toBe(first.body.data.monitor.id);
    const listed = await call(internal, await mint(caller), "GET", "/v1/monitors");
    expect(listed.body.data.monitors.map((monitor: { id: string }) => monitor.id)).toEqual([
      first.body.data.monitor.id,
    ]);
    // The key's own bucket: the answer carries its rate-limit headers, as for the key's own calls.
    expect(listed.headers.get("ratelimit-policy")).toMatch(/^"per-key";q=\d+;w=\d+$/);
  });

  it("is an unknown key on the public port", async () => {
    const refused = await call(stack.gatewayUrl, await mint(await accountKey()), "GET", "/v1/monitors");
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe("invalid_api_key");
  });

  it("opens no data route, no pull of items and no /v1/account, even on the internal listener", async () => {
    const caller = await accountKey();
    const internal = stack.gatewayInternalUrl;
    const created = await call(internal, await mint(caller), "POST", "/v1/monitors", { body: MONITOR });
    const id = created.body.data.monitor.id as string;
    for (const path of ["/v1/posts?subreddit=pics", "/v1/account", `/v1/monitors/${id}/items`]) {
      const refused = await call(internal, await mint(caller), "GET", path);
      expect(refused.status, path).toBe(401);
      expect(refused.body.code, path).toBe("invalid_api_key");
    }
    const changed = await call(internal, await mint(caller), "PATCH", `/v1/monitors/${id}`, {
      body: { paused: true },
    });
    expect(changed.status).toBe(401);
  });

  it("is refused for another account's key, an operator's key and a revoked key", async () => {
    const internal = stack.gatewayInternalUrl;
    const theirs = await accountKey();
    const forged = { keyId: theirs.keyId, accountId: account() };
    const operatorKey = await stack.createKey();
    const revoked = await accountKey();
    expect((await call(internal, await mint(revoked), "GET", "/v1/monitors")).status).toBe(200);
    expect(await billing.revokeKey(revoked.accountId, revoked.keyId)).toEqual({ ok: true, value: "revoked" });
    for (const caller of [forged, { keyId: operatorKey.id, accountId: account() }, revoked]) {
      const refused = await call(internal, await mint(caller), "GET", "/v1/monitors");
      expect(refused.status, caller.keyId).toBe(401);
      expect(refused.body.code, caller.keyId).toBe("invalid_api_key");
    }
    const unknown = { keyId: `key_${"0".repeat(16)}`, accountId: account() };
    expect((await call(internal, await mint(unknown), "GET", "/v1/monitors")).status).toBe(401);
  });

  it("is refused when signed with the MCP service's secret, or stale", async () => {
    const caller = await accountKey();
    const internal = stack.gatewayInternalUrl;
    const withMcpSecret = await mint(caller, stack.internalSecret);
    expect((await call(internal, withMcpSecret, "GET", "/v1/monitors")).status).toBe(401);
    const now = Math.floor(Date.now() / 1000);
    const stale = await new SignJWT({ account_id: caller.accountId })
      .setProtectedHeader({ alg: "HS256", typ: "rda-portal+jwt" })
      .setIssuer("rda-portal")
      .setAudience("rda-gateway-portal")
      .setSubject(caller.keyId)
      .setIssuedAt(now - 120)
      .setExpirationTime(now - 60)
      .sign(new TextEncoder().encode(portalSecret()));
    expect((await call(internal, stale, "GET", "/v1/monitors")).status).toBe(401);
  });
});
