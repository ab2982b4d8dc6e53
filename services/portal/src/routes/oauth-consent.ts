/**
 * Connecting an OAuth client (an MCP client such as Claude, ChatGPT or mcp-remote): the page the
 * authorization server sends the browser to. The person signs in with the portal's own email link
 * if needed (and comes back here), sees which app asks and where the answer goes, and picks which
 * of their keys it may spend. Allowing makes a grant for the MCP resource bound to that key (a
 * connection); the access tokens of the grant carry the key id. Every POST carries its CSRF token.
 */
import { KEY_ID_PATTERN, type KeyDetails } from "@rda/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import { errors } from "oidc-provider";
import type { PortalContext } from "../context.ts";
import { field } from "../http/forms.ts";
import { renderPage, sendPageError } from "../http/render.ts";
import { requireSignIn, type SignedIn } from "../http/session.ts";
import type { ConnectionKind } from "../oauth/connections.ts";
import { CONSENT_PATH, MCP_SCOPE, OAUTH_TTL_SECONDS } from "../oauth/provider.ts";
import { billingFailed } from "./keys.ts";

type ConsentRequest = FastifyRequest<{ Params: { uid: string } }>;

/**
 * The scopes the provider knows (provider.ts) a grant carries when asked: `mcp`, `openid` (an ID
 * token) and `offline_access` (refresh tokens). Anything else asked for is not granted.
 */
const OIDC_SCOPES = new Set([MCP_SCOPE, "openid", "offline_access"]);

interface Pending {
  readonly uid: string;
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
}

/** The authorization this browser is in the middle of, or undefined when it expired or is not this one. */
async function pendingAuthorization(ctx: PortalContext, request: ConsentRequest, reply: FastifyReply) {
  try {
    const details = await ctx.oauth.provider.interactionDetails(request.raw, reply.raw);
    if (details.uid !== request.params.uid) return undefined;
    const clientId = String(details.params.client_id ?? "");
    const client = await ctx.oauth.provider.Client.find(clientId);
    if (!client) return undefined;
    const pending: Pending = {
      uid: details.uid,
      clientId,
      clientName: client.clientName ?? clientId,
      redirectUri: String(details.params.redirect_uri ?? ""),
      scopes: String(details.params.scope ?? "").split(" "),
    };
    return pending;
  } catch (error) {
    if (error instanceof errors.SessionNotFound) return undefined;
    throw error;
  }
}

async function activeKeys(ctx: PortalContext, signedIn: SignedIn) {
  const listed = await ctx.billing.listKeys(signedIn.accountId);
  return listed.ok ? { keys: listed.value.keys.filter((key) => !key.revoked) } : { failure: listed.error };
}

function renderConsent(
  ctx: PortalContext,
  reply: FastifyReply,
  pending: Pending,
  keys: readonly KeyDetails[],
  extra: Record<string, unknown> = {},
  status = 200,
) {
  // The browser follows the answer to this form to the app's redirect URI: the page's CSP must
  // allow a form to end up there.
  reply.formTargets = [new URL(pending.redirectUri).origin];
  return renderPage(
    ctx,
    reply,
    "consent",
    {
      title: `Connect ${pending.clientName}`,
      clientName: pending.clientName,
      redirectHost: new URL(pending.redirectUri).host,
      consentPath: `${CONSENT_PATH}/${pending.uid}`,
      keys,
      ...extra,
    },
    status,
  );
}

export function consentPage(ctx: PortalContext) {
  return async (request: ConsentRequest, reply: FastifyReply) => {
    const pending = await pendingAuthorization(ctx, request, reply);
    if (!pending) return sendPageError(ctx, reply, "oauth_request_expired");
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const listed = await activeKeys(ctx, signedIn);
    if ("failure" in listed) return billingFailed(ctx, reply, listed.failure!);
    return renderConsent(ctx, reply, pending, listed.keys);
  };
}

export function answerConsent(ctx: PortalContext) {
  return async (request: ConsentRequest, reply: FastifyReply) => {
    const pending = await pendingAuthorization(ctx, request, reply);
    if (!pending) return sendPageError(ctx, reply, "oauth_request_expired");
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const provider = ctx.oauth.provider;
    const finish = async (result: Parameters<typeof provider.interactionResult>[2]) =>
      reply.redirect(
        await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false }),
        303,
      );
    if (field(request.body, "decision") !== "allow") {
      return finish({ error: "access_denied", error_description: "the person declined to connect" });
    }
    const listed = await activeKeys(ctx, signedIn);
    if ("failure" in listed) return billingFailed(ctx, reply, listed.failure!);
    const keyId = field(request.body, "key_id") ?? "";
    if (!KEY_ID_PATTERN.test(keyId) || !listed.keys.some((key) => key.id === keyId)) {
      const error = { title: "Choose a key", message: "Pick one of your active keys for this app to spend." };
      return renderConsent(ctx, reply, pending, listed.keys, { error }, 400);
    }
    const grantId = await grantFor(ctx, signedIn, pending, keyId);
    request.log.info(
      { account_id: signedIn.accountId, key_id: keyId, grant_id: grantId },
      "OAuth client connected",
    );
    return finish({ login: { accountId: signedIn.accountId }, consent: { grantId } });
  };
}

/**
 * A grant for the MCP resource, and the connection that binds it to the key. One connection per
 * client and account: allowing a client that is connected already reuses its grant (bound now to
 * the key picked this time), so Connected apps lists it once.
 */
async function grantFor(ctx: PortalContext, signedIn: SignedIn, pending: Pending, keyId: string) {
  const { provider, resource, connections } = ctx.oauth;
  const existing = (await connections.list(signedIn.accountId)).filter(
    (connection) => connection.kind === "authorization" && connection.clientId === pending.clientId,
  );
  let grant: InstanceType<typeof provider.Grant> | undefined;
  for (const connection of existing) {
    const found = grant ? undefined : await provider.Grant.find(connection.grantId);
    if (found) grant = found;
    else await ctx.oauth.disconnect(signedIn.accountId, connection.grantId);
  }
  grant ??= new provider.Grant({ accountId: signedIn.accountId, clientId: pending.clientId });
  grant.addResourceScope(resource, MCP_SCOPE);
  const asked = pending.scopes.filter((scope) => OIDC_SCOPES.has(scope));
  if (asked.length > 0) grant.addOIDCScope(asked.join(" "));
  const grantId = await grant.save();
  await ctx.oauth.keepClient(pending.clientId);
  await connections.save(
    {
      grantId,
      accountId: signedIn.accountId,
      clientId: pending.clientId,
      clientName: pending.clientName,
      redirectHost: new URL(pending.redirectUri).host,
      keyId,
      createdAt: new Date().toISOString(),
      kind: "authorization",
    },
    OAUTH_TTL_SECONDS.grant,
  );
  return grantId;
}

export function connectionsPage(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const listed = await connectionsWithKeys(ctx, signedIn, "authorization");
    if ("failure" in listed) return billingFailed(ctx, reply, listed.failure!);
    return renderPage(ctx, reply, "connections", {
      title: "Connected apps",
      nav: "connections",
      notice: field(request.query, "done") === "disconnected" ? "The app is disconnected." : undefined,
      connections: listed.connections,
    });
  };
}

/** The account's connections of one kind, each with the label of the key it spends and whether it is revoked. */
export async function connectionsWithKeys(ctx: PortalContext, signedIn: SignedIn, kind: ConnectionKind) {
  const [connections, listed] = await Promise.all([
    ctx.oauth.connections.list(signedIn.accountId),
    ctx.billing.listKeys(signedIn.accountId),
  ]);
  if (!listed.ok) return { failure: listed.error };
  const byId = new Map(listed.value.keys.map((key) => [key.id, key]));
  return {
    keys: listed.value.keys,
    connections: connections
      .filter((connection) => connection.kind === kind)
      .map((connection) => ({
        ...connection,
        keyLabel: byId.get(connection.keyId)?.label || connection.keyId,
        keyRevoked: byId.get(connection.keyId)?.revoked ?? true,
      })),
  };
}

export function disconnect(ctx: PortalContext) {
  return async (request: FastifyRequest<{ Params: { grantId: string } }>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const grantId = request.params.grantId;
    const ended =
      /^[A-Za-z0-9_-]{1,64}$/.test(grantId) && (await ctx.oauth.disconnect(signedIn.accountId, grantId));
    if (!ended) return sendPageError(ctx, reply, "not_found");
    return reply.redirect("/connections?done=disconnected", 303);
  };
}
