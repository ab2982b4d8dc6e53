/**
 * An MCP client connecting by OAuth, as hosted agents and mcp-remote do, against the whole stack:
 * the MCP SDK's own OAuth client (discovery from the 401, dynamic registration, PKCE, the token
 * exchange) with a real browser (Debian's Chromium) for the person's part in the portal: signing in
 * by email link, creating a key, picking it on the consent page. Then a tool call charged to that
 * key, a refresh that rotates the tokens (a reused refresh token or a replayed code ends the grant at
 * once), and the two ways a person ends it: disconnecting the app in the portal, and revoking its key.
 * Then an agent client made on the Agent clients page (its secret shown once), whose client
 * credentials token calls a tool, and which the person revokes there. Screenshots in
 * test-artifacts/oauth/.
 */
import { randomBytes } from "node:crypto";
import {
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  type OAuthClientProvider,
  refreshAuthorization,
  startAuthorization,
  UnauthorizedError,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { waitFor } from "@rda/service-kit/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emailedLink, expectAccessibleBasics, launchBrowser, screenshotter } from "../support/browser.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let browser: Browser;
let portalUrl: string;
let mcpUrl: string;
const screenshot = screenshotter("oauth");
const SETTLE = { timeout: 15_000 };
/** Where the client says the browser comes back; the test catches the browser there. */
const REDIRECT = "http://127.0.0.1:47231/oauth/callback";

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack({ portal: true }), launchBrowser()]);
  portalUrl = stack.portal!.url;
  mcpUrl = `${stack.gatewayUrl}/mcp`;
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** The SDK's OAuth client provider interface, kept in memory as a CLI client keeps it on disk. */
class MemoryOAuthClient implements OAuthClientProvider {
  authorizationUrl?: URL;
  information?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  private verifier = "";
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: "Test Agent",
    redirect_uris: [REDIRECT],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  clientInformation = () => this.information;
  saveClientInformation = (information: OAuthClientInformationMixed) => {
    this.information = information;
  };
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => {
    this.saved = tokens;
  };
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url;
  };
  saveCodeVerifier = (verifier: string) => {
    this.verifier = verifier;
  };
  codeVerifier = () => this.verifier;
}

/** Opens the authorization URL; the person allows with `keyLabel`; returns the callback's parameters. */
async function authorizeInBrowser(page: Page, url: URL | string, keyLabel: string) {
  const callback = new Promise<URL>((resolve) => {
    void page.route(`${REDIRECT}**`, async (route) => {
      resolve(new URL(route.request().url()));
      await route.fulfill({ contentType: "text/plain", body: "You can close this window." });
    });
  });
  await page.goto(String(url));
  await page.getByRole("heading", { name: "Connect Test Agent" }).waitFor(SETTLE);
  await page.getByLabel(new RegExp(keyLabel)).check();
  await screenshot(page, "consent");
  await page.getByRole("button", { name: "Allow" }).click();
  const answer = await callback;
  await page.unroute(`${REDIRECT}**`);
  return answer.searchParams;
}

async function connectWith(provider: OAuthClientProvider) {
  const client = new Client({ name: "oauth-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
  return client;
}

/** One MCP request with a bare access token (no SDK retry logic), for the status alone. */
function statusWithToken(token: string) {
  return fetch(mcpUrl, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  }).then((response) => response.status);
}

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<string, string>;

describe("an MCP client connecting by OAuth", () => {
  let context: BrowserContext;
  let page: Page;
  const agent = new MemoryOAuthClient();
  let keyId: string;
  let firstTokens: OAuthTokens;

  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    page = await context.newPage();
  });
  afterAll(async () => context?.close());

  it("signs in, picks a new key on the consent page and gets tokens bound to it, from the 401 alone", async () => {
    // The SDK meets the 401, discovers the metadata, registers, and hands over an authorization URL.
    await expect(connectWith(agent)).rejects.toThrow(UnauthorizedError);
    expect(agent.information?.client_id).toEqual(expect.any(String));
    expect(agent.authorizationUrl?.origin).toBe(portalUrl);
    expect(agent.authorizationUrl?.searchParams.get("resource")).toBe(mcpUrl);

    // Not signed in: the portal's email link first, then back to this same request.
    const email = `agent-${randomBytes(4).toString("hex")}@example.com`;
    await page.goto(String(agent.authorizationUrl));
    await page.getByRole("heading", { name: "Sign in" }).waitFor(SETTLE);
    await page.getByLabel("Email address").fill(email);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor(SETTLE);
    await page.goto(await emailedLink(stack.portal!, email));
    await page.getByRole("button", { name: "Confirm and create my account" }).click();

    // No key yet: the consent page says so; make one, and come back.
    await page.getByRole("heading", { name: "Connect Test Agent" }).waitFor(SETTLE);
    await expectAccessibleBasics(page);
    expect(await page.textContent("main")).toContain("127.0.0.1:47231");
    expect(await page.textContent("main")).toContain("You have no active key");
    const consentUrl = page.url();
    await page.goto(`${portalUrl}/keys`);
    await page.getByLabel("Label").fill("agent key");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("heading", { name: "Your new API key" }).waitFor(SETTLE);
    keyId = (await page.locator("code").first().textContent()) ?? "";
    expect(keyId).toMatch(/^key_/);

    const params = await authorizeInBrowser(page, consentUrl, "agent key");
    expect(params.get("iss")).toBe(portalUrl);
    expect(params.get("code")).toEqual(expect.any(String));
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: agent });
    await transport.finishAuth(params.get("code")!);
    firstTokens = agent.saved!;
    expect(firstTokens.refresh_token).toEqual(expect.any(String));
    expect(claimsOf(firstTokens.access_token)).toMatchObject({ aud: mcpUrl, iss: portalUrl, key_id: keyId });
  });

  it("calls a tool with the token, charged to the chosen key", async () => {
    const before = await stack.balanceOf(keyId);
    const client = await connectWith(agent);
    const result = await client.callTool({ name: "search_subreddits", arguments: { q: "type" } });
    expect(result.isError).toBeFalsy();
    expect(await stack.balanceOf(keyId)).toBe(before - 1);
    const credits = await client.callTool({ name: "check_credits", arguments: {} });
    expect(JSON.stringify(credits.structuredContent)).toContain(String(before - 1));
    await client.close();
  });

  it("refreshes: both tokens rotate, and the old refresh token is refused", async () => {
    const metadata = await discoverAuthorizationServerMetadata(portalUrl);
    const refresh = (refreshToken: string) =>
      refreshAuthorization(portalUrl, {
        metadata,
        clientInformation: agent.information!,
        refreshToken,
        resource: new URL(mcpUrl),
      });
    const renewed = await refresh(firstTokens.refresh_token!);
    expect(renewed.access_token).not.toBe(firstTokens.access_token);
    expect(renewed.refresh_token).not.toBe(firstTokens.refresh_token);
    expect(await statusWithToken(renewed.access_token)).toBe(200);
    // The old one again is a stolen copy, or a confused client: the whole grant ends, at once.
    await expect(refresh(firstTokens.refresh_token!)).rejects.toThrow(/invalid_grant|grant/i);
    await waitFor(
      async () => (await statusWithToken(renewed.access_token)) === 401,
      "the renewed token to be refused",
      1_000,
    );
    await expect(refresh(renewed.refresh_token!)).rejects.toThrow(/invalid_grant|grant/i);
  });

  it("refuses a wrong PKCE verifier and a replayed code with invalid_grant", async () => {
    const metadata = await discoverAuthorizationServerMetadata(portalUrl);
    const started = await startAuthorization(portalUrl, {
      metadata,
      clientInformation: agent.information!,
      redirectUrl: REDIRECT,
      scope: "mcp",
      resource: new URL(mcpUrl),
    });
    // Signed in already: straight to the consent page.
    const params = await authorizeInBrowser(page, started.authorizationUrl, "agent key");
    const exchange = (codeVerifier: string) =>
      exchangeAuthorization(portalUrl, {
        metadata,
        clientInformation: agent.information!,
        authorizationCode: params.get("code")!,
        codeVerifier,
        redirectUri: REDIRECT,
        resource: new URL(mcpUrl),
      });
    await expect(exchange(`${started.codeVerifier.slice(0, -4)}AAAA`)).rejects.toThrow(
      /invalid_grant|grant/i,
    );
    const second = await exchange(started.codeVerifier);
    expect(second.access_token).toEqual(expect.any(String));
    expect(await statusWithToken(second.access_token)).toBe(200);
    // A replayed code means it leaked: the tokens it already gave stop working at once.
    await expect(exchange(started.codeVerifier)).rejects.toThrow(/invalid_grant|grant/i);
    await waitFor(
      async () => (await statusWithToken(second.access_token)) === 401,
      "the replayed code's tokens to be refused",
      1_000,
    );
  });

  it("lists the app under Connected apps; disconnecting it refuses its token at once and ends its refresh", async () => {
    // Its earlier grants ended above: it connects again, as a client does after invalid_grant.
    const again = new MemoryOAuthClient();
    again.information = agent.information;
    await expect(connectWith(again)).rejects.toThrow(UnauthorizedError);
    const params = await authorizeInBrowser(page, again.authorizationUrl!, "agent key");
    await new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: again }).finishAuth(
      params.get("code")!,
    );
    const current = again.saved!;
    const grantId = claimsOf(current.access_token).grant_id!;
    await page.goto(`${portalUrl}/connections`);
    await expectAccessibleBasics(page);
    const row = page.locator(`tr[data-grant-id="${grantId}"]`);
    expect(await row.textContent()).toContain("Test Agent");
    expect(await row.textContent()).toContain("agent key");
    await screenshot(page, "connections");
    await row.getByRole("button", { name: "Disconnect Test Agent" }).click();
    await page.getByText("The app is disconnected.").waitFor(SETTLE);
    expect(await page.locator(`tr[data-grant-id="${grantId}"]`).count()).toBe(0);
    await waitFor(
      async () => (await statusWithToken(current.access_token)) === 401,
      "the token to be refused",
      1_000,
    );
    const metadata = await discoverAuthorizationServerMetadata(portalUrl);
    await expect(
      refreshAuthorization(portalUrl, {
        metadata,
        clientInformation: agent.information!,
        refreshToken: current.refresh_token!,
        resource: new URL(mcpUrl),
      }),
    ).rejects.toThrow(/invalid_grant|grant/i);
  });

  it("refuses the app's calls within a second once its key is revoked in the portal", async () => {
    const reconnected = new MemoryOAuthClient();
    reconnected.information = agent.information;
    await expect(connectWith(reconnected)).rejects.toThrow(UnauthorizedError);
    const params = await authorizeInBrowser(page, reconnected.authorizationUrl!, "agent key");
    await new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: reconnected }).finishAuth(
      params.get("code")!,
    );
    const token = reconnected.saved!.access_token;
    expect(await statusWithToken(token)).toBe(200);

    await page.goto(`${portalUrl}/keys/${keyId}`);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Revoke key" }).click();
    await page.getByText("The key is revoked.").waitFor(SETTLE);
    await waitFor(
      async () => (await statusWithToken(token)) === 401,
      "the revoked key's token to be refused",
      1_000,
    );
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
    expect(((await refused.json()) as { error: string }).error).toMatch(/revoked/);
  });
});

describe("an agent client made on the Agent clients page", () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    page = await context.newPage();
  });
  afterAll(async () => context?.close());

  const tokenFor = async (clientId: string, secret: string) => {
    const response = await fetch(`${portalUrl}/oauth/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`,
      },
      body: new URLSearchParams({ grant_type: "client_credentials", scope: "mcp", resource: mcpUrl }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  };

  it("creates a client bound to a key, shows its secret once, and revoking it refuses the agent", async () => {
    const email = `agents-${randomBytes(4).toString("hex")}@example.com`;
    await page.goto(`${portalUrl}/login`);
    await page.getByLabel("Email address").fill(email);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor(SETTLE);
    await page.goto(await emailedLink(stack.portal!, email));
    await page.getByRole("button", { name: "Confirm and create my account" }).click();
    await page.waitForURL(/\/keys/, SETTLE);
    await page.getByLabel("Label").fill("unattended key");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("heading", { name: "Your new API key" }).waitFor(SETTLE);
    const keyId = (await page.locator("code").first().textContent()) ?? "";

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agent clients" }).click();
    await page.getByRole("heading", { name: "Agent clients", level: 1 }).waitFor(SETTLE);
    await expectAccessibleBasics(page);
    await page.getByLabel("Name").fill("nightly digest");
    await page.getByLabel("Key it spends").selectOption(keyId);
    await page.getByRole("button", { name: "Create agent client" }).click();
    await page.getByRole("heading", { name: "Your new agent client" }).waitFor(SETTLE);
    await expectAccessibleBasics(page);
    const clientId = await page.getByLabel("Client id").inputValue();
    const secret = await page.getByLabel("Client secret").inputValue();
    expect(clientId).toMatch(/^agent_/);
    expect(secret).toMatch(/^rdcs_/);
    expect(await page.locator("#snippet-token").textContent()).toContain("grant_type=client_credentials");
    await screenshot(page, "agent-client-secret");
    // Shown once: the same page again leads to the list, which says so.
    await page.reload();
    await page.getByText("shown only once").waitFor(SETTLE);

    const token = await tokenFor(clientId, secret);
    expect(token.status).toBe(200);
    expect(claimsOf(token.body.access_token!)).toMatchObject({ key_id: keyId, grant_id: clientId });
    const before = await stack.balanceOf(keyId);
    const client = new Client({ name: "unattended-agent", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${token.body.access_token}` } },
      }),
    );
    expect(
      (await client.callTool({ name: "search_subreddits", arguments: { q: "type" } })).isError,
    ).toBeFalsy();
    await client.close();
    expect(await stack.balanceOf(keyId)).toBe(before - 1);

    const row = page.locator(`tr[data-client-id="${clientId}"]`);
    expect(await row.textContent()).toContain("nightly digest");
    expect(await row.textContent()).toContain("unattended key");
    await screenshot(page, "agent-clients");
    await row.getByRole("button", { name: "Revoke nightly digest" }).click();
    await page.getByText("The agent client is revoked.").waitFor(SETTLE);
    expect(await page.locator(`tr[data-client-id="${clientId}"]`).count()).toBe(0);
    await waitFor(
      async () => (await statusWithToken(token.body.access_token!)) === 401,
      "the agent's token to be refused",
      1_000,
    );
    expect((await tokenFor(clientId, secret)).body.error).toBe("invalid_client");
  });
});
