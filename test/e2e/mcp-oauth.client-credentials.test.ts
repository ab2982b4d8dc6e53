/**
 * An agent that runs without a person, over the whole stack: the account holder creates an agent
 * client on the portal's "Agent clients" page (its secret shown once, kept only as a hash); the MCP
 * SDKs' own client-credentials providers (v1 on 2025-11-25, v2 on 2026-07-28) get a token from the
 * 401 alone at the portal's token endpoint and call a tool charged to the bound key exactly as the
 * key's own call is (balance against the ledger, which verifies); once the client is revoked in the
 * portal its token is refused within a second (measured from the portal's answer to the first
 * refused call) and it gets no new one; so is a token whose bound key is revoked. Registered
 * (public) clients cannot use the grant.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  Client as ModernClient,
  ClientCredentialsProvider as ModernClientCredentials,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrowserlessClient, uniqueClientIp } from "../../services/portal/test/support/client.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { verifyLedger } from "./exports.support.ts";

type Fields = Record<string, unknown> & { error?: string };

let stack: Stack;
let portalUrl: string;
let mcpUrl: string;
let person: BrowserlessClient;
let keyId: string;

beforeAll(async () => {
  stack = await startStack({ portal: true });
  portalUrl = stack.portal!.url;
  mcpUrl = `${stack.gatewayUrl}/mcp`;
  person = new BrowserlessClient(portalUrl, uniqueClientIp());
  await person.signUp(`agent-owner-${randomBytes(4).toString("hex")}@example.com`, stack.portal!.inbox);
  ({ id: keyId } = await person.createKey("agent key"));
}, 90_000);
afterAll(async () => stack?.stop());

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Creates an agent client on the portal page; its id and the secret the page shows once. */
async function createAgentClient(name: string, boundKey = keyId) {
  const posted = await person.submit("/agents", "/agents", { name, key_id: boundKey });
  expect(posted.status).toBe(303);
  const shown = await person.follow(posted);
  expect(shown.status).toBe(200);
  const clientId = /value="(agent_[A-Za-z0-9_-]{22})"/.exec(shown.body)?.[1];
  const secret = /value="(rdcs_[A-Za-z0-9_-]{43})"/.exec(shown.body)?.[1];
  if (!clientId || !secret) throw new Error("the new agent client's page shows no id or secret");
  return { clientId, secret, secretPage: posted.location! };
}

function tokenRequest(clientId: string, secret: string, form: Record<string, string> = { scope: "mcp" }) {
  return fetch(`${portalUrl}/oauth/token`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`,
    },
    body: new URLSearchParams({ grant_type: "client_credentials", resource: mcpUrl, ...form }),
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as Fields }));
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

/** The docs' promise for a revocation in the portal: every gateway refuses the token within this. */
const REFUSED_WITHIN_MS = 1_000;

/**
 * Milliseconds from now (the portal's answer to the revocation) until /mcp first refuses the token,
 * polling. The wait itself is longer than the promise, so a miss is reported with the gap it took.
 */
async function msUntilRefused(accessToken: string): Promise<number> {
  const answeredAt = Date.now();
  await waitFor(async () => (await mcpStatus(accessToken)) === 401, "the token to be refused", 10_000);
  return Date.now() - answeredAt;
}

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, string>;

describe("an agent client made in the portal", () => {
  let clientId: string;
  let secret: string;
  let agentProvider: ClientCredentialsProvider;

  it("is advertised: the authorization server names the grant and HTTP Basic client authentication", async () => {
    const metadata = (await (
      await fetch(`${portalUrl}/.well-known/oauth-authorization-server`)
    ).json()) as Fields;
    expect(metadata.grant_types_supported).toContain("client_credentials");
    expect(metadata.token_endpoint_auth_methods_supported).toContain("client_secret_basic");
  });

  it("shows its secret once and keeps only the secret's hash", async () => {
    const created = await createAgentClient("nightly digest");
    ({ clientId, secret } = created);
    // Opened again, the page shows nothing and says why.
    const again = await person.get(created.secretPage);
    expect(again.status).toBe(303);
    expect(again.location).toBe("/agents?done=secret-shown");
    expect((await person.get(again.location!)).body).toContain("shown only once");
    const record = await stack.redis.get(stack.keys.portal.oauthRecord("Client", sha256(clientId)));
    expect(record).not.toBeNull();
    expect(record).not.toContain(secret);
    expect(JSON.parse(record!)).toMatchObject({
      client_secret: sha256(secret),
      grant_types: ["client_credentials"],
    });

    const list = (await person.get("/agents")).body;
    const row = new RegExp(`data-client-id="${clientId}"[\\s\\S]*?</tr>`).exec(list)?.[0] ?? "";
    expect(row).toContain("nightly digest");
    expect(row).toContain(keyId);
  });

  it("gets a token from the 401 alone with the SDK's client-credentials provider, and a tool call is charged to the bound key", async () => {
    agentProvider = new ClientCredentialsProvider({
      clientId,
      clientSecret: secret,
      scope: "mcp",
      expectedIssuer: portalUrl,
    });
    const client = new Client({ name: "unattended-agent", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: agentProvider }));
    const token = agentProvider.tokens()!.access_token;
    expect(claimsOf(token)).toMatchObject({
      aud: mcpUrl,
      iss: portalUrl,
      client_id: clientId,
      key_id: keyId,
      grant_id: clientId,
      scope: "mcp",
    });

    const before = await stack.balanceOf(keyId);
    const result = await client.callTool({ name: "search_subreddits", arguments: { q: "type" } });
    expect(result.isError).toBeFalsy();
    expect(await stack.balanceOf(keyId)).toBe(before - 1);
    // A free tool stays free for the agent too.
    const credits = await client.callTool({ name: "check_credits", arguments: {} });
    expect(JSON.stringify(credits.structuredContent)).toContain(String(before - 1));
    expect(await stack.balanceOf(keyId)).toBe(before - 1);
    await client.close();
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  });

  it("serves the v2 client on 2026-07-28 with its own client-credentials provider, charged the same", async () => {
    const provider = new ModernClientCredentials({
      clientId,
      clientSecret: secret,
      scope: "mcp",
      expectedIssuer: portalUrl,
    });
    const client = new ModernClient(
      { name: "unattended-agent-v2", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(new ModernTransport(new URL(mcpUrl), { authProvider: provider }));
    const before = await stack.balanceOf(keyId);
    const result = await client.callTool({ name: "search_subreddits", arguments: { q: "type" } });
    expect(result.isError).toBeFalsy();
    expect(await stack.balanceOf(keyId)).toBe(before - 1);
    await client.close();
  });

  it("refuses a wrong secret, a token without the mcp scope, and a registered client asking for the grant", async () => {
    const wrong = await tokenRequest(clientId, `rdcs_${randomBytes(32).toString("base64url")}`);
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_client");
    // The stored hash is not a secret either.
    expect((await tokenRequest(clientId, sha256(secret))).body.error).toBe("invalid_client");
    const unscoped = await tokenRequest(clientId, secret, {});
    expect(unscoped.status).toBe(400);
    expect(unscoped.body.error).toBe("invalid_scope");

    const registered = await fetch(`${portalUrl}/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": uniqueClientIp() },
      body: JSON.stringify({
        client_name: "Self-made agent",
        redirect_uris: [],
        response_types: [],
        grant_types: ["client_credentials"],
        token_endpoint_auth_method: "client_secret_basic",
      }),
    });
    expect(registered.status).toBe(400);
    expect(((await registered.json()) as Fields).error).toBe("invalid_client_metadata");
  });

  it("refuses a form with no name or another account's key, creating nothing", async () => {
    const before = (await person.get("/agents")).body.match(/data-client-id=/g)?.length ?? 0;
    const unnamed = await person.submit("/agents", "/agents", { name: " ", key_id: keyId });
    expect(unnamed.status).toBe(400);
    expect(unnamed.body).toContain("Name the client");
    const { id: strangersKey } = await stack.createKey({ credits: 10 });
    const foreign = await person.submit("/agents", "/agents", { name: "stolen", key_id: strangersKey });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toContain("Pick one of your active keys");
    expect((await person.get("/agents")).body.match(/data-client-id=/g)?.length ?? 0).toBe(before);
  });

  it("is refused at /mcp within a second of its revocation in the portal, and at the token endpoint at once", async () => {
    const token = (await tokenRequest(clientId, secret)).body.access_token as string;
    expect(await mcpStatus(token)).toBe(200);

    const revoked = await person.submit("/agents", `/agents/${clientId}/revoke`, {});
    expect(revoked.status).toBe(303);
    // Every gateway hears of it by an event (portal.events.grant_revoked), sent before the page answered.
    expect(await msUntilRefused(token)).toBeLessThanOrEqual(REFUSED_WITHIN_MS);
    expect((await person.follow(revoked)).body).toContain("The agent client is revoked.");
    const refused = await fetch(mcpUrl, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: "{}",
    });
    expect(refused.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
    // Its record is gone before the page answered: no new token.
    const again = await tokenRequest(clientId, secret);
    expect(again.status).toBe(401);
    expect(again.body.error).toBe("invalid_client");
    expect(await stack.redis.get(stack.keys.portal.oauthRecord("Client", sha256(clientId)))).toBeNull();
    expect((await person.get("/agents")).body).not.toContain(clientId);
  });

  it("is refused within a second once the key it spends is revoked, and a new client cannot be bound to that key", async () => {
    const { id: secondKey } = await person.createKey("second agent key");
    const second = await createAgentClient("weekly report", secondKey);
    const token = (await tokenRequest(second.clientId, second.secret)).body.access_token as string;
    expect(await mcpStatus(token)).toBe(200);
    const revoked = await person.submit(`/keys/${secondKey}`, `/keys/${secondKey}/revoke`, {});
    expect(revoked.status).toBe(303);
    // The key's revocation event empties every gateway's entry for it (docs/api.md#mcp-endpoint-oauth).
    expect(await msUntilRefused(token)).toBeLessThanOrEqual(REFUSED_WITHIN_MS);
    const refreshed = await tokenRequest(second.clientId, second.secret);
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe("invalid_grant");
    const rebound = await person.submit("/agents", "/agents", { name: "again", key_id: secondKey });
    expect(rebound.status).toBe(400);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  });

  it("holds at most 20 live agent clients per account; one more is refused, creating nothing", async () => {
    const live = async () => (await person.get("/agents")).body.match(/data-client-id=/g)?.length ?? 0;
    for (let held = await live(); held < 20; held += 1) await createAgentClient(`agent ${held}`);
    const refused = await person.submit("/agents", "/agents", { name: "one too many", key_id: keyId });
    expect(refused.status).toBe(409);
    expect(refused.body).toContain("at most 20 agent clients");
    expect(await live()).toBe(20);
  });
});
