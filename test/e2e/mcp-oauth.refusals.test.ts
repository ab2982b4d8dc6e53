/**
 * OAuth at /mcp, everything a client can get wrong, over plain HTTP against the whole stack (the
 * portal as authorization server, the gateway as resource server): discovery from a refused request,
 * registration rules, authorization requests refused without a redirect, tokens the gateway must
 * refuse (another resource, expired, in the URL, for the REST API), and the MCP service's internal
 * credential, which only the internal listener accepts and only while fresh. The full flow with a
 * browser is in mcp-oauth.browser.test.ts.
 */
import { generateKeyPair, importJWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../support/stack.ts";

/** A JSON answer's fields, as a test reads them. */
type Fields = Record<string, unknown> & { error?: string };
const json = async (response: Response) => (await response.json()) as Fields;

let stack: Stack;
let portalUrl: string;
let mcpUrl: string;
let keyId: string;
let apiKey: string;

beforeAll(async () => {
  stack = await startStack({ portal: true });
  portalUrl = stack.portal!.url;
  mcpUrl = `${stack.gatewayUrl}/mcp`;
  ({ id: keyId, key: apiKey } = await stack.createKey({ credits: 50 }));
}, 90_000);
afterAll(async () => stack?.stop());

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

function postMcp(headers: Record<string, string>, url = mcpUrl) {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(initialize),
  });
}

async function registerClient(redirectUris: string[]) {
  return fetch(`${portalUrl}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Refusal test client",
      redirect_uris: redirectUris,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }),
  });
}

/** An access token as the portal signs them, with claims a test chooses. */
async function forgedToken(claims: Record<string, unknown>) {
  const { privateJwk } = stack.portal!.signingKey;
  const key = await importJWK(privateJwk, "ES256");
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: portalUrl,
    aud: mcpUrl,
    sub: "acct_0123456789abcdef",
    iat: now,
    exp: now + 300,
    client_id: "some-client",
    scope: "mcp",
    key_id: keyId,
    grant_id: "g1",
    ...claims,
  })
    .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: privateJwk.kid })
    .sign(key);
}

describe("discovery from a refused request", () => {
  it("answers unauthenticated POST and GET /mcp with 401 naming the protected-resource metadata", async () => {
    const post = await postMcp({});
    const get = await fetch(mcpUrl, { headers: { accept: "application/json, text/event-stream" } });
    for (const response of [post, get]) {
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe(
        `Bearer resource_metadata="${stack.gatewayUrl}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
      );
      expect((await json(response)).error).toMatch(/missing API key/);
    }
  });

  it("serves the protected-resource metadata at the path form and the root form, naming the portal", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]) {
      const response = await fetch(`${stack.gatewayUrl}${path}`);
      expect(response.status).toBe(200);
      const metadata = await json(response);
      expect(metadata.resource).toBe(mcpUrl);
      expect(metadata.authorization_servers).toEqual([portalUrl]);
      expect(metadata.scopes_supported).toEqual(["mcp"]);
    }
  });

  it("serves RFC 8414 metadata with S256 only, public and agent clients, registration and the iss parameter", async () => {
    const response = await fetch(`${portalUrl}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    const metadata = await json(response);
    expect(metadata.issuer).toBe(portalUrl);
    expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
    // `none` for public clients; client_secret_basic for the portal's agent clients only.
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(["none", "client_secret_basic"]);
    expect(metadata.registration_endpoint).toBe(`${portalUrl}/register`);
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    expect(metadata.grant_types_supported).toEqual(
      expect.arrayContaining(["authorization_code", "refresh_token"]),
    );
    const openid = await json(await fetch(`${portalUrl}/.well-known/openid-configuration`));
    expect(openid.issuer).toBe(portalUrl);
  });
});

describe("client registration", () => {
  it("registers a public client with a loopback redirect", async () => {
    const response = await registerClient(["http://127.0.0.1:33418/callback"]);
    expect(response.status).toBe(201);
    const client = await json(response);
    expect(client.client_id).toEqual(expect.any(String));
    expect(client.token_endpoint_auth_method).toBe("none");
    expect(client.client_secret).toBeUndefined();
  });

  it("refuses a plain-http redirect that is not on a loopback address with 400", async () => {
    const response = await registerClient(["http://app.example.com/callback"]);
    expect(response.status).toBe(400);
    expect((await json(response)).error).toBe("invalid_redirect_uri");
  });
});

describe("authorization requests refused without a redirect", () => {
  let clientId: string;
  const redirectUri = "http://127.0.0.1:33419/callback";
  const authorize = (params: Record<string, string>) =>
    fetch(`${portalUrl}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: "manual" });
  const base = () => ({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "mcp",
    state: "s1",
    resource: mcpUrl,
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  });

  beforeAll(async () => {
    clientId = String((await json(await registerClient([redirectUri]))).client_id);
  });

  it("refuses a request without PKCE, and one with the plain method, on a page of its own", async () => {
    const { code_challenge: _c, code_challenge_method: _m, ...withoutPkce } = base();
    for (const params of [withoutPkce, { ...base(), code_challenge_method: "plain" }]) {
      const response = await authorize(params);
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      expect(await response.text()).toContain("PKCE");
    }
  });

  it("refuses a redirect URI the client never registered, on a page of its own", async () => {
    const response = await authorize({ ...base(), redirect_uri: "http://127.0.0.1:33419/elsewhere" });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toContain("redirect_uri");
  });

  it("sends a valid request on to sign-in and consent", async () => {
    const response = await authorize(base());
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toMatch(/^\/oauth\/consent\/[\w-]+$/);
  });
});

describe("access tokens the gateway refuses", () => {
  it("accepts a token signed by the portal for this resource and bound to a live key", async () => {
    const response = await postMcp({ authorization: `Bearer ${await forgedToken({})}` });
    expect(response.status).toBe(200);
  });

  it("refuses a token for another resource with 401 invalid_token", async () => {
    const token = await forgedToken({ aud: "https://elsewhere.example/mcp" });
    const response = await postMcp({ authorization: `Bearer ${token}` });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(
      /error="invalid_token", error_description="the access token is for another resource"/,
    );
  });

  it("refuses an expired token with 401", async () => {
    const token = await forgedToken({
      exp: Math.floor(Date.now() / 1000) - 60,
      iat: Math.floor(Date.now() / 1000) - 400,
    });
    const response = await postMcp({ authorization: `Bearer ${token}` });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/the access token has expired/);
  });

  it("refuses a token signed by a key the portal does not publish with 401", async () => {
    const { privateKey } = await generateKeyPair("ES256");
    const token = await new SignJWT({ client_id: "c", scope: "mcp", key_id: keyId, grant_id: "g1" })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: stack.portal!.signingKey.privateJwk.kid })
      .setIssuer(portalUrl)
      .setAudience(mcpUrl)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(privateKey);
    expect((await postMcp({ authorization: `Bearer ${token}` })).status).toBe(401);
  });

  it("refuses a token in the query string, even a valid one", async () => {
    const token = await forgedToken({});
    const response = await postMcp({}, `${mcpUrl}?access_token=${token}`);
    expect(response.status).toBe(401);
    expect((await json(response)).error).toMatch(/never in the URL/);
  });

  it("refuses an access token on the REST API, which takes API keys only", async () => {
    const response = await fetch(`${stack.gatewayUrl}/v1/account`, {
      headers: { authorization: `Bearer ${await forgedToken({})}` },
    });
    expect(response.status).toBe(401);
  });

  it("keeps API keys working at /mcp, and a bad one gets a challenge that says so", async () => {
    expect((await postMcp({ "x-api-key": apiKey })).status).toBe(200);
    const bad = await postMcp({ "x-api-key": `rdk_${"z".repeat(43)}` });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toMatch(
      /error="invalid_token", error_description="unknown or revoked API key"/,
    );
  });
});

describe("the MCP service's internal credential", () => {
  const secret = () => new TextEncoder().encode(stack.internalSecret);
  const credential = (claims: { aud?: string; exp?: number; iat?: number } = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "rda-internal+jwt" })
      .setIssuer("rda-gateway")
      .setAudience(claims.aud ?? "rda-gateway-internal")
      .setSubject(keyId)
      .setIssuedAt(claims.iat ?? now)
      .setExpirationTime(claims.exp ?? now + 30)
      .sign(secret());
  };
  const account = (base: string, value: string) =>
    fetch(`${base}/v1/account`, { headers: { "x-api-key": value } });

  it("is accepted on the internal listener while fresh", async () => {
    expect((await account(stack.gatewayInternalUrl, await credential())).status).toBe(200);
  });

  it("is refused on the public port", async () => {
    const response = await account(stack.gatewayUrl, await credential());
    expect(response.status).toBe(401);
    const atMcp = await postMcp({ authorization: `Bearer ${await credential()}` });
    expect(atMcp.status).toBe(401);
  });

  it("is refused once expired, or for another audience", async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await credential({ iat: now - 120, exp: now - 60 });
    const elsewhere = await credential({ aud: "somewhere-else" });
    for (const value of [expired, elsewhere]) {
      expect((await account(stack.gatewayInternalUrl, value)).status).toBe(401);
    }
  });

  it("never reaches the MCP service when a caller sends it in the header the gateway uses", async () => {
    const response = await postMcp({ "x-rda-internal-credential": await credential() });
    expect(response.status).toBe(401);
  });
});
