/**
 * Keys as a signed-in developer meets them in the portal, over HTTP against real billing, Redis, NATS
 * and SMTP: the secret shown once, the account's limits shown and enforced, clear answers to bad
 * input, usage as JSON for scripts, and a clear page when billing is down.
 */
import { randomBytes } from "node:crypto";
import { keyUsageReportSchema } from "@rda/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserlessClient, csrfTokenOf, uniqueClientIp } from "./support/client.ts";
import { type PortalHarness, startPortalHarness } from "./support/harness.ts";

const FAILED_AUTH_BURST = 5;

let h: PortalHarness;
beforeAll(async () => {
  h = await startPortalHarness("portal-keys", {
    maxActiveKeys: 2,
    maxKeysCreated: 3,
    // Next to no refill, so the test does not depend on how fast it runs.
    failedAuth: { burst: FAILED_AUTH_BURST, qps: 0.001 },
  });
});
afterAll(() => h.close());

async function signedInClient(): Promise<BrowserlessClient> {
  const email = `dev-${randomBytes(4).toString("hex")}@example.com`;
  const client = h.client({ ip: uniqueClientIp() });
  await client.signUp(email, h.inbox);
  return client;
}

/** Creates a key through the form and opens the page its redirect leads to, as a browser does. */
async function createKey(client: BrowserlessClient, label: string) {
  const posted = await client.submit("/keys", "/keys", { label });
  if (posted.status !== 303) return { status: posted.status, body: posted.body, id: "", secret: "" };
  expect(posted.location).toMatch(/^\/keys\/key_[0-9a-z]{16}\/secret$/);
  const created = await client.follow(posted);
  const id = /key_[0-9a-z]{16}/.exec(created.body)?.[0];
  const secret = /value="(rdk_[A-Za-z0-9_-]{43})"/.exec(created.body)?.[1];
  return { status: created.status, body: created.body, id: id!, secret: secret! };
}

describe("creating keys", () => {
  it("shows the new secret once, with the first request filled in, and never again", async () => {
    const client = await signedInClient();
    const key = await createKey(client, "laptop");
    expect(key.status).toBe(200);
    expect(key.body).toContain("This is the only time it is shown");
    expect(key.body).toContain(`x-api-key: ${key.secret}`);
    expect(key.body).toContain(`apiKey: &quot;${key.secret}&quot;`);
    for (const page of ["/keys", `/keys/${key.id}`, "/billing"]) {
      const answer = await client.get(page);
      expect(answer.status, page).toBe(200);
      expect(answer.body, page).not.toContain(key.secret);
    }
  });

  it("shows a new secret after a redirect, so reloading its page neither resends the form nor shows the secret again", async () => {
    const client = await signedInClient();
    const posted = await client.submit("/keys", "/keys", { label: "reload me" });
    expect(posted.status).toBe(303);
    const shown = await client.follow(posted);
    expect(shown.status).toBe(200);
    expect(shown.headers.get("cache-control")).toBe("no-store");
    const secret = /value="(rdk_[A-Za-z0-9_-]{43})"/.exec(shown.body)?.[1];
    expect(secret).toBeDefined();
    expect(shown.body).toContain("It comes with 333 free credits.");

    // The browser's reload is a GET of the same page: no second key, and no secret.
    const reloaded = await client.get(posted.location!);
    expect(reloaded.status).toBe(303);
    const keyPage = await client.follow(reloaded);
    expect(keyPage.body).toContain("it was shown already");
    expect(keyPage.body).not.toContain(secret!);
    expect((await client.get("/keys")).body.match(/<tr data-key-id=/g)).toHaveLength(1);

    // Another signed-in person opening the same address finds nothing either.
    const id = /key_[0-9a-z]{16}/.exec(posted.location!)![0];
    const rotatedPost = await client.submit(`/keys/${id}`, `/keys/${id}/rotate`, {});
    expect(rotatedPost.status).toBe(303);
    const stranger = await signedInClient();
    const strangerView = await stranger.get(rotatedPost.location!);
    expect(strangerView.status).toBe(303);
    expect(strangerView.body).not.toContain("rdk_");
    const rotated = await client.follow(rotatedPost);
    expect(rotated.body).toContain("Your key&#39;s new secret");
    const newSecret = /value="(rdk_[A-Za-z0-9_-]{43})"/.exec(rotated.body)?.[1];
    expect(newSecret).toBeDefined();
    expect(newSecret).not.toBe(secret);
  });

  it("keeps a secret waiting for its page only encrypted, never in the clear", async () => {
    const client = await signedInClient();
    const posted = await client.submit("/keys", "/keys", { label: "at rest" });
    const stored = await h.redis.keys(`${h.namespace}:*pending-secret*`);
    expect(stored).toHaveLength(1);
    const value = (await h.redis.get(stored[0]!))!;
    expect(value).not.toContain("rdk_");
    const shown = await client.follow(posted);
    const secret = /value="(rdk_[A-Za-z0-9_-]{43})"/.exec(shown.body)![1]!;
    expect(value).not.toContain(secret.slice(4));
    expect(await h.redis.exists(stored[0]!)).toBe(0);
  });

  it("refuses a label with invisible direction controls, saying so, and creates nothing", async () => {
    const client = await signedInClient();
    for (const label of ["invoice\u202Etxt.exe", "a\u2066b", "left\u200Fright", "x\u202Ay"]) {
      const answer = await client.submit("/keys", "/keys", { label });
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('aria-invalid="true"');
      expect(answer.body).toContain("A label may not contain invisible direction controls");
    }
    expect((await client.get("/keys")).body).toContain("You have no keys yet.");
    // Letters of right-to-left scripts are welcome; only the invisible controls are refused.
    expect((await createKey(client, "מפתח עבודה")).status).toBe(200);
  });

  it("lists each key with label, creation date, last use, balance and status", async () => {
    const client = await signedInClient();
    const key = await createKey(client, "production");
    const row = /<tr data-key-id="[^"]+">[\s\S]*?<\/tr>/.exec((await client.get("/keys")).body)?.[0] ?? "";
    expect(row).toContain("production");
    expect(row).toContain(key.id);
    expect(row).toMatch(/<time datetime="\d{4}-\d\d-\d\dT/);
    expect(row).toContain("never");
    expect(row).toContain("333 credits");
    expect(row).toContain("Active");
  });

  it("answers an empty or overlong label with the form and a message on the field, creating nothing", async () => {
    const client = await signedInClient();
    for (const label of ["", "   ", "x".repeat(101)]) {
      const answer = await client.submit("/keys", "/keys", { label });
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('aria-invalid="true"');
      expect(answer.body).toContain("Give the key a label of 1 to 100 characters");
    }
    expect((await client.get("/keys")).body).toContain("You have no keys yet.");
  });

  it("shows the active-key limit when reached, refuses more, and frees a place on revocation", async () => {
    const client = await signedInClient();
    const first = await createKey(client, "one");
    await createKey(client, "two");
    const page = await client.get("/keys");
    expect(page.body).toContain("You have 2 active keys, the most an account may hold.");
    expect(page.body).toMatch(/<button type="submit" class="primary" disabled/);
    const refused = await client.post("/keys", { _csrf: csrfTokenOf(page.body), label: "three" });
    expect(refused.status).toBe(409);
    expect(refused.body).toContain("Revoke a key you no longer use to create another.");
    await client.submit(`/keys/${first.id}`, `/keys/${first.id}/revoke`, {});
    expect((await createKey(client, "three")).status).toBe(200);
    // Three created of three: the lifetime limit now, though only two are active.
    const afterwards = await client.get("/keys");
    expect(afterwards.body).toContain("This account has created 3 keys, the most an account may create.");
  });
});

describe("usage as JSON for scripts", () => {
  it("answers the key's own secret with its balance and usage, and another key's secret with 404", async () => {
    const client = await signedInClient();
    const key = await createKey(client, "script");
    const other = await createKey(client, "other");
    const answer = await fetch(`${h.url}/keys/${key.id}/usage.json?days=7`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    expect(answer.status).toBe(200);
    const report = keyUsageReportSchema.parse(await answer.json());
    expect(report.key).toMatchObject({ id: key.id, label: "script", credits_balance: 333, revoked: false });
    expect(report.days).toHaveLength(7);
    expect(report.totals.credits_granted).toBe(333);
    const crossed = await fetch(`${h.url}/keys/${key.id}/usage.json`, {
      headers: { "x-api-key": other.secret },
    });
    expect(crossed.status).toBe(404);
  });

  it("answers no credentials with 401, and a bad period with 400, both as {error}", async () => {
    const client = await signedInClient();
    const key = await createKey(client, "json");
    const anonymous = await fetch(`${h.url}/keys/${key.id}/usage.json`);
    expect(anonymous.status).toBe(401);
    expect(Object.keys((await anonymous.json()) as object)).toEqual(["error"]);
    const badDays = await client.get(`/keys/${key.id}/usage.json?days=0`);
    expect(badDays.status).toBe(400);
    expect(JSON.parse(badDays.body)).toEqual({ error: "days must be a whole number from 1 to 400" });
  });
});

describe("usage JSON against a flood of wrong keys", () => {
  it("throttles an address after its burst of refused keys, as the gateway does, and looks none of them up", async () => {
    const client = await signedInClient();
    const key = await createKey(client, "flooded");
    const ip = uniqueClientIp();
    const asked = (secret: string, from = ip) =>
      fetch(`${h.url}/keys/${key.id}/usage.json`, {
        headers: { "x-api-key": secret, "x-forwarded-for": from },
      });
    const random = () => `rdk_${randomBytes(32).toString("base64url").slice(0, 43)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await asked(i % 3 === 0 ? "not-a-key" : random())).status);
    expect(statuses.slice(0, FAILED_AUTH_BURST)).toEqual(Array(FAILED_AUTH_BURST).fill(401));
    expect(statuses.slice(FAILED_AUTH_BURST)).toEqual(Array(12 - FAILED_AUTH_BURST).fill(429));
    const throttled = await asked(random());
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await throttled.json()) as { error: string }).error).toContain("malformed, unknown or revoked");
    // Another address is untouched, and so is a signed-in browser: the limit is on guessing keys.
    expect((await asked(key.secret, uniqueClientIp())).status).toBe(200);
    expect((await client.get(`/keys/${key.id}/usage.json`)).status).toBe(200);
    // No key at all is someone not signed in: never counted.
    const anonymousIp = uniqueClientIp();
    for (let i = 0; i < FAILED_AUTH_BURST + 2; i++) {
      const anonymous = await fetch(`${h.url}/keys/${key.id}/usage.json`, {
        headers: { "x-forwarded-for": anonymousIp },
      });
      expect(anonymous.status).toBe(401);
    }
  });
});

describe("rotation and revocation", () => {
  it("refuses to rotate a revoked key with a message on its page", async () => {
    const client = await signedInClient();
    const key = await createKey(client, "old");
    await client.submit(`/keys/${key.id}`, `/keys/${key.id}/revoke`, {});
    const page = await client.get(`/keys/${key.id}?done=revoked`);
    expect(page.body).toContain("The key is revoked.");
    expect(page.body).not.toContain("Rotate secret");
    const refused = await client.post(`/keys/${key.id}/rotate`, { _csrf: csrfTokenOf(page.body) });
    expect(refused.status).toBe(409);
    expect(refused.body).toContain("A revoked key cannot be rotated");
  });
});

describe("when billing is down", () => {
  it("answers the keys page with 503, Retry-After and a page that says to try again", async () => {
    const client = await signedInClient();
    await h.stopBilling();
    const answer = await client.get("/keys");
    expect(answer.status).toBe(503);
    expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(answer.body).toContain("Nothing was changed; try again in a minute.");
    expect(h.logLines()).toContain("billing_unavailable");
  });
});
