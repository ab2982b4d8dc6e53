/**
 * Agent clients: OAuth clients for agents that run without a person (the client credentials grant,
 * RFC 6749 section 4.4), created by an account holder on the portal's "Agent clients" page and bound
 * there to one of their keys. The agent sends its client id and secret (HTTP Basic) to the token
 * endpoint with `grant_type=client_credentials` and gets the same access tokens an authorization
 * gives: scope `mcp`, for the `/mcp` resource only, carrying the bound key (docs/api.md#mcp-oauth).
 *
 * The secret is shown once, on the page after creation; the authorization server keeps only its
 * SHA-256 (a 256-bit random secret needs no slow hash), in the client's record where oidc-provider
 * would keep the secret itself, and compares hashes (`compareHashedSecret`).
 *
 * An agent client is a connection of kind `client_credentials` (connections.ts) named by the client
 * id, so revoking it is ending that connection: every gateway refuses its tokens at once.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { PortalRedisKeys, Redis } from "@rda/service-kit";
import { errors } from "oidc-provider";
import { newSecretToken, sha256 } from "../store/secrets.ts";
import { saveClientRecord } from "./redis-adapter.ts";

/** Every agent client's id starts so; dynamically registered ids are random and never do. */
export const AGENT_CLIENT_PREFIX = "agent_";
const AGENT_CLIENT_ID = /^agent_[A-Za-z0-9_-]{22}$/;
const SECRET_PREFIX = "rdcs_";
/** Agent client names, as the page asks for them: plain text within this length. */
export const AGENT_NAME_MAX = 100;
/** Live agent clients one account may hold: each is a record kept until revoked. */
export const MAX_AGENT_CLIENTS_PER_ACCOUNT = 20;

/** The grant agent clients use, and the only one. */
export const CLIENT_CREDENTIALS = "client_credentials";
/** How an agent client authenticates at the token endpoint (RFC 6749 section 2.3.1). */
const AUTH_METHOD = "client_secret_basic";

export const isAgentClientId = (clientId: unknown): clientId is string =>
  typeof clientId === "string" && AGENT_CLIENT_ID.test(clientId);

export interface NewAgentClient {
  readonly clientId: string;
  /** Shown once; only its hash is stored. */
  readonly clientSecret: string;
}

/** Writes a new agent client's record for the authorization server, kept until it is revoked. */
export async function registerAgentClient(
  redis: Redis,
  keys: PortalRedisKeys,
  name: string,
  scope: string,
): Promise<NewAgentClient> {
  const clientId = `${AGENT_CLIENT_PREFIX}${randomBytes(16).toString("base64url")}`;
  const clientSecret = `${SECRET_PREFIX}${newSecretToken()}`;
  await saveClientRecord(redis, keys, clientId, {
    client_id: clientId,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    client_secret: sha256(clientSecret),
    client_secret_expires_at: 0,
    client_name: name,
    grant_types: [CLIENT_CREDENTIALS],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: AUTH_METHOD,
    scope,
  });
  return { clientId, clientSecret };
}

/**
 * The client metadata rule for both kinds, run by the provider on every registration and every
 * record it reads: an agent client keeps exactly the shape written above; any other client may not
 * use the client credentials grant (agent clients are made in the portal, never registered).
 */
export function checkAgentClientShape(metadata: Record<string, unknown>): "agent" | "public" {
  const grants = Array.isArray(metadata.grant_types) ? metadata.grant_types : [];
  if (!isAgentClientId(metadata.client_id)) {
    if (grants.includes(CLIENT_CREDENTIALS)) {
      throw new errors.InvalidClientMetadata(
        "client_credentials clients are created in the developer portal (Agent clients), not registered",
      );
    }
    return "public";
  }
  if (
    grants.length !== 1 ||
    grants[0] !== CLIENT_CREDENTIALS ||
    metadata.token_endpoint_auth_method !== AUTH_METHOD
  ) {
    throw new errors.InvalidClientMetadata(
      "an agent client uses client_credentials with client_secret_basic only",
    );
  }
  return "agent";
}

/**
 * oidc-provider's secret comparison for clients whose stored `client_secret` is the secret's SHA-256
 * (only agent clients have a secret at all: every other client is public).
 */
export function compareHashedSecret(storedHash: string | undefined, presented: string): boolean {
  if (typeof storedHash !== "string" || typeof presented !== "string") return false;
  const expected = Buffer.from(storedHash, "utf8");
  const actual = Buffer.from(sha256(presented), "utf8");
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
