/**
 * The authorization server against a careless or hostile client, over HTTP against the whole stack
 * (the person's part done by a browserless client that keeps cookies and sends each form's CSRF
 * token): discovery names only what works; `openid` completes in one consent; pushed authorization
 * requests are not offered; no client-supplied URL makes the portal connect to a loopback address;
 * registration is bounded; a replayed code, a reused refresh token and a revoked refresh token end
 * the grant's access tokens at once; a refresh after the key was revoked is refused; and a client
 * connected twice is one connection.
 */
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server } from "node:net";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BrowserlessClient,
  csrfTokenOf,
  linkIn,
  uniqueClientIp,
} from "../../services/portal/test/support/client.ts";
import { type Stack, startStack } from "../support/stack.ts";

type Fields = Record<string, unknown> & { error?: string };

let stack: Stack;
let portalUrl: string;
let mcpUrl: string;
/** The person: signed in to the portal, with one key. */
let person: BrowserlessClient;
let accountKeyId: string;
/** A TCP listener on loopback that counts every connection anyone opens to it. */
let trap: Server;
let trapPort: number;
let trapConnections = 0;

beforeAll(async () => {
  stack = await startStack({ portal: true, portalSettings: { trustProxy: true } });
  portalUrl = stack.portal!.url;
  mcpUrl = `${stack.gatewayUrl}/mcp`;
  trap = createServer((socket) => {
    trapConnections += 1;
    socket.destroy();
  });
  trap.listen(0, "127.0.0.1");
  await once(trap, "listening");
  trapPort = (trap.address() as { port: number }).port;
  person = await signedIn(`owner-${randomBytes(4).toString("hex")}@example.com`);
  accountKeyId = await createKey(person, "agent key");
}, 90_000);
afterAll(async () => {
  trap?.close();
  await stack?.stop();
});

async function signedIn(email: string): Promise<BrowserlessClient> {
  const client = new BrowserlessClient(portalUrl, uniqueClientIp());
  expect((await client.submit("/login", "/login", { email })).status).toBe(200);
  const [mail] = await stack.portal!.inbox.waitForMessages(email);
  const link = linkIn(mail!.text);
  const confirm = await client.get(link);
  const token = new URL(link).searchParams.get("token")!;
  expect((await client.post("/auth", { _csrf: csrfTokenOf(confirm.body), token })).status).toBe(303);
  return client;
}

async function createKey(client: BrowserlessClient, label: string): Promise<string> {
  const created = await client.submit("/keys", "/keys", { label });
  // The new secret is shown after a redirect to the key's page, which names its id.
  const id = /key_[0-9a-z]{16}/.exec(created.location ?? created.body)?.[0];
  if (!id) throw new Error("no key id on the new key's page");
  return id;
}

function register(metadata: Record<string, unknown>, ip = uniqueClientIp()) {
  return fetch(`${portalUrl}/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": ip },
    body: JSON.stringify({
      client_name: "Hardening test client",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...metadata,
    }),
  });
}

const REDIRECT = "http://127.0.0.1:47299/callback";

async function newClient(): Promise<string> {
  const response = await register({ redirect_uris: [REDIRECT] });
  expect(response.status).toBe(201);
  return String(((await response.json()) as Fields).client_id);
}

const pkce = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

/** The person allows `clientId` with `keyId`; returns the code and the PKCE verifier it needs. */
async function authorize(clientId: string, keyId: string, scope = "mcp offline_access") {
  const { verifier, challenge } = pkce();
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope,
    state: "s1",
    ...(scope.split(" ").includes("openid") ? { nonce: "n1" } : {}),
    resource: mcpUrl,
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  const start = await person.get(`/oauth/authorize?${params}`);
  expect(start.status).toBe(303);
  const consentPath = start.location!;
  expect(consentPath).toMatch(/^\/oauth\/consent\//);
  const page = await person.get(consentPath);
  expect(page.status).toBe(200);
  const allowed = await person.post(consentPath, {
    _csrf: csrfTokenOf(page.body),
    decision: "allow",
    key_id: keyId,
  });
  expect(allowed.status).toBe(303);
  // Back to the provider, which answers with the redirect to the client.
  let location = allowed.location!;
  for (let hop = 0; hop < 3 && !location.startsWith(REDIRECT); hop++) {
    location = (await person.get(location)).location ?? "";
  }
  const answer = new URL(location);
  expect(answer.origin + answer.pathname).toBe(REDIRECT);
  const code = answer.searchParams.get("code");
  if (!code) throw new Error(`no code in ${location}`);
  return { code, verifier };
}

function tokenRequest(form: Record<string, string>) {
  return fetch(`${portalUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ resource: mcpUrl, ...form }),
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as Fields }));
}

const exchange = (clientId: string, code: string, verifier: string) =>
  tokenRequest({
    grant_type: "authorization_code",
    client_id: clientId,
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
  });

const refresh = (clientId: string, refreshToken: string) =>
  tokenRequest({ grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken });

/** A connected client: its id and its first tokens. */
async function connected(keyId = accountKeyId, scope?: string) {
  const clientId = await newClient();
  const { code, verifier } = await authorize(clientId, keyId, scope);
  const tokens = await exchange(clientId, code, verifier);
  expect(tokens.status).toBe(200);
  return { clientId, code, verifier, tokens: tokens.body as Fields & Record<string, string> };
}

function mcpStatus(accessToken: string) {
  return fetch(mcpUrl, {
    method: "POST",
    headers: {
      authorization: `Bearer ${accessToken}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  }).then((response) => response.status);
}

const refusedSoon = (accessToken: string) =>
  waitFor(async () => (await mcpStatus(accessToken)) === 401, "the access token to be refused", 2_000);

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, string>;

async function connectionRows(): Promise<string> {
  return (await person.get("/connections")).body;
}

describe("discovery", () => {
  it("names only the scopes, grants and endpoints that work: no PAR, no DPoP, no userinfo", async () => {
    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
      const metadata = (await (await fetch(`${portalUrl}${path}`)).json()) as Fields;
      expect(new Set(metadata.scopes_supported as string[])).toEqual(
        new Set(["mcp", "offline_access", "openid"]),
      );
      expect(new Set(metadata.grant_types_supported as string[])).toEqual(
        new Set(["authorization_code", "refresh_token", "client_credentials"]),
      );
      expect(metadata.response_types_supported).toEqual(["code"]);
      expect(metadata.pushed_authorization_request_endpoint).toBeUndefined();
      expect(metadata.require_pushed_authorization_requests).toBeUndefined();
      expect(metadata.dpop_signing_alg_values_supported).toBeUndefined();
      expect(metadata.userinfo_endpoint).toBeUndefined();
      expect(metadata.introspection_endpoint).toBeUndefined();
      expect(metadata.end_session_endpoint).toBeUndefined();
      expect(metadata.request_parameter_supported).toBeFalsy();
      expect(metadata.subject_types_supported).toEqual(["public"]);
      // Every endpoint named answers (a bad request, not a missing route).
      for (const name of ["token_endpoint", "registration_endpoint", "revocation_endpoint"]) {
        const response = await fetch(String(metadata[name]), { method: "POST" });
        expect([name, response.status]).toEqual([name, 400]);
      }
      expect((await fetch(String(metadata.jwks_uri))).status).toBe(200);
    }
  });

  it("has no pushed-authorization endpoint: a well-formed push is not accepted", async () => {
    const clientId = await newClient();
    const response = await fetch(`${portalUrl}/request`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: REDIRECT,
        scope: "mcp",
        code_challenge: pkce().challenge,
        code_challenge_method: "S256",
      }),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(await response.text()).not.toContain("request_uri");
  });
});

describe("openid and connections", () => {
  it("completes `openid mcp` in one consent, with an ID token naming the account", async () => {
    const { tokens } = await connected(accountKeyId, "openid mcp offline_access");
    expect(tokens.id_token).toEqual(expect.any(String));
    const idToken = claimsOf(tokens.id_token!);
    expect(idToken).toMatchObject({ iss: portalUrl, nonce: "n1" });
    expect(idToken.sub).toMatch(/^acct_/);
    expect(await mcpStatus(tokens.access_token!)).toBe(200);
  });

  it("keeps one connection per client and account, however often it is allowed", async () => {
    const clientId = await newClient();
    const grants = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const { code, verifier } = await authorize(clientId, accountKeyId);
      const tokens = await exchange(clientId, code, verifier);
      grants.add(claimsOf(String(tokens.body.access_token)).grant_id!);
    }
    expect(grants.size).toBe(1);
    const rows = (await connectionRows()).match(/data-grant-id="[^"]+"/g) ?? [];
    const [grantId] = grants;
    expect(rows.filter((row) => row.includes(grantId!))).toHaveLength(1);
  });
});

describe("no outbound connection for a client-supplied URL", () => {
  it("opens no connection to a loopback listener for a registration's URLs or a metadata-document client id", async () => {
    const before = trapConnections;
    const trapUrl = (host: string) => `https://${host}:${trapPort}/client.json`;
    const sector = await register({
      redirect_uris: ["https://app.example.com/cb"],
      sector_identifier_uri: trapUrl("127.0.0.1"),
      subject_type: "pairwise",
    });
    expect(sector.status).toBe(400);
    expect(((await sector.json()) as Fields).error).toBe("invalid_client_metadata");
    await register({
      redirect_uris: ["https://app.example.com/cb"],
      jwks_uri: trapUrl("127.0.0.1"),
      logo_uri: trapUrl("127.0.0.1"),
      client_uri: trapUrl("127.0.0.1"),
    });
    for (const host of [
      "127.0.0.1",
      "localhost",
      "[::ffff:127.0.0.1]",
      "[::1]",
      "169.254.169.254",
      "10.0.0.1",
    ]) {
      const params = new URLSearchParams({
        response_type: "code",
        client_id: trapUrl(host),
        redirect_uri: "https://app.example.com/cb",
        scope: "mcp",
        code_challenge: pkce().challenge,
        code_challenge_method: "S256",
      });
      const response = await fetch(`${portalUrl}/oauth/authorize?${params}`, { redirect: "manual" });
      expect([host, response.status]).toEqual([host, 400]);
      expect(response.headers.get("location")).toBeNull();
    }
    // Give any stray connection attempt time to land before counting.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(trapConnections).toBe(before);
  });
});

describe("registration limits", () => {
  it("refuses more than 10 redirect URIs, and one over 2,000 characters", async () => {
    const many = Array.from({ length: 11 }, (_, i) => `https://app.example.com/cb${i}`);
    const tooMany = await register({ redirect_uris: many });
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as Fields).error).toBe("invalid_redirect_uri");
    const long = await register({ redirect_uris: [`https://app.example.com/${"a".repeat(2_000)}`] });
    expect(long.status).toBe(400);
    expect((await register({ redirect_uris: many.slice(0, 10) })).status).toBe(201);
  });

  it("allows 20 registrations an hour from one client address, then 429 with Retry-After", async () => {
    const ip = uniqueClientIp();
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      statuses.push((await register({ redirect_uris: [REDIRECT] }, ip)).status);
    }
    expect(statuses).toEqual([...Array(20).fill(201), 429]);
    const refused = await register({ redirect_uris: [REDIRECT] }, ip);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await refused.json()) as Fields).error).toBe("too_many_requests");
    // Another address is not held back.
    expect((await register({ redirect_uris: [REDIRECT] })).status).toBe(201);
  });

  it("keeps an unused registration for 3 days, and one that got a connection for 90", async () => {
    const unused = await newClient();
    const used = (await connected()).clientId;
    const ttlOf = async (clientId: string) =>
      stack.redis.ttl(
        stack.keys.portal.oauthRecord("Client", createHash("sha256").update(clientId).digest("hex")),
      );
    expect(await ttlOf(unused)).toBeLessThanOrEqual(3 * 24 * 3_600);
    expect(await ttlOf(unused)).toBeGreaterThan(2 * 24 * 3_600);
    expect(await ttlOf(used)).toBeGreaterThan(80 * 24 * 3_600);
  });
});

describe("ending a grant ends its access tokens at once", () => {
  it("after a replayed code is refused", async () => {
    const { clientId, code, verifier, tokens } = await connected();
    expect(await mcpStatus(tokens.access_token!)).toBe(200);
    const replay = await exchange(clientId, code, verifier);
    expect(replay.body.error).toBe("invalid_grant");
    await refusedSoon(tokens.access_token!);
    expect(await connectionRows()).not.toContain(claimsOf(tokens.access_token!).grant_id);
  });

  it("after a refresh token is used twice", async () => {
    const { clientId, tokens } = await connected();
    const renewed = await refresh(clientId, tokens.refresh_token!);
    expect(renewed.status).toBe(200);
    const newAccess = String(renewed.body.access_token);
    expect(await mcpStatus(newAccess)).toBe(200);
    expect((await refresh(clientId, tokens.refresh_token!)).body.error).toBe("invalid_grant");
    await refusedSoon(newAccess);
    expect((await refresh(clientId, String(renewed.body.refresh_token))).body.error).toBe("invalid_grant");
  });

  it("after the client revokes its refresh token", async () => {
    const { clientId, tokens } = await connected();
    expect(await mcpStatus(tokens.access_token!)).toBe(200);
    const revoked = await fetch(`${portalUrl}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.refresh_token!, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    await refusedSoon(tokens.access_token!);
    expect(await connectionRows()).not.toContain(claimsOf(tokens.access_token!).grant_id);
  });
});

describe("a revoked key", () => {
  it("makes a refresh fail with invalid_grant instead of issuing tokens /mcp refuses", async () => {
    const keyId = await createKey(person, "short-lived key");
    const { clientId, tokens } = await connected(keyId);
    await stack.revokeKey(keyId);
    const refused = await refresh(clientId, tokens.refresh_token!);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("invalid_grant");
    expect(String(refused.body.error_description)).toMatch(/grant/);
  });
});
