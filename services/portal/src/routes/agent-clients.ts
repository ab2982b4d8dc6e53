/**
 * The "Agent clients" pages: OAuth clients for agents that run without a person (the client
 * credentials grant, oauth/agent-clients.ts). The account holder names one and binds it to one of
 * their active keys; its secret is shown once, on the page the form redirects to (the same
 * POST-redirect-GET as a key's secret, store/pending-secrets.ts); revoking it ends its access on
 * every gateway within a second, as disconnecting an app does. Every POST carries its CSRF token.
 */
import { KEY_ID_PATTERN, type KeyDetails, labelProblem } from "@rda/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { field } from "../http/forms.ts";
import { type PageLocals, renderPage, sendPageError } from "../http/render.ts";
import { requireSignIn, type SignedIn } from "../http/session.ts";
import { AGENT_NAME_MAX, isAgentClientId, MAX_AGENT_CLIENTS_PER_ACCOUNT } from "../oauth/agent-clients.ts";
import { MCP_SCOPE, OAUTH_ROUTES } from "../oauth/provider.ts";
import { billingFailed } from "./keys.ts";
import { connectionsWithKeys } from "./oauth-consent.ts";

type ClientRequest = FastifyRequest<{ Params: { clientId: string } }>;

const NOTICES = {
  revoked: "The agent client is revoked. Its tokens are refused within a second, and it gets no new ones.",
  "secret-shown":
    "A client secret is shown only once, and it was shown already. If you did not copy it, revoke the client and create another.",
} as const;

async function renderAgents(
  ctx: PortalContext,
  reply: FastifyReply,
  signedIn: SignedIn,
  extra: Partial<PageLocals> = {},
  status = 200,
) {
  const listed = await connectionsWithKeys(ctx, signedIn, "client_credentials");
  if ("failure" in listed) return billingFailed(ctx, reply, listed.failure!);
  return renderPage(
    ctx,
    reply,
    "agent-clients",
    {
      title: "Agent clients",
      nav: "agents",
      clients: listed.connections,
      activeKeys: (listed.keys ?? []).filter((key: KeyDetails) => !key.revoked),
      form: { name: "", keyId: "" },
      nameMax: AGENT_NAME_MAX,
      tokenUrl: `${ctx.settings.publicUrl}${OAUTH_ROUTES.token}`,
      ...extra,
    },
    status,
  );
}

export function agentClientsPage(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const done = field(request.query, "done");
    const notice = done !== undefined && done in NOTICES ? NOTICES[done as keyof typeof NOTICES] : undefined;
    return renderAgents(ctx, reply, signedIn, { notice });
  };
}

/** The name as typed, tidied, or the sentence saying what to change (the same rule as a key's label). */
function readName(raw: string | undefined): { name: string } | { problem: string } {
  const name = (raw ?? "").trim().replace(/\s+/g, " ");
  if (name.length < 1 || name.length > AGENT_NAME_MAX)
    return { problem: `Name the client in 1 to ${AGENT_NAME_MAX} characters, such as "nightly digest".` };
  const problem = labelProblem(name);
  return problem === undefined ? { name } : { problem: `${problem[0]!.toUpperCase()}${problem.slice(1)}.` };
}

export function createAgentClient(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const typedName = field(request.body, "name") ?? "";
    const keyId = field(request.body, "key_id") ?? "";
    const read = readName(typedName);
    const listed = await ctx.billing.listKeys(signedIn.accountId);
    if (!listed.ok) return billingFailed(ctx, reply, listed.error);
    const keyActive =
      KEY_ID_PATTERN.test(keyId) && listed.value.keys.some((key) => key.id === keyId && !key.revoked);
    if ("problem" in read || !keyActive) {
      const form = {
        name: typedName,
        keyId,
        nameError: "problem" in read ? read.problem : undefined,
        keyError: keyActive ? undefined : "Pick one of your active keys for this client to spend.",
      };
      return renderAgents(ctx, reply, signedIn, { form }, 400);
    }
    const held = await ctx.oauth.connections.list(signedIn.accountId);
    if (
      held.filter((connection) => connection.kind === "client_credentials").length >=
      MAX_AGENT_CLIENTS_PER_ACCOUNT
    ) {
      const error = {
        title: "Too many agent clients",
        message: `An account holds at most ${MAX_AGENT_CLIENTS_PER_ACCOUNT} agent clients. Revoke one you no longer use to create another.`,
      };
      return renderAgents(ctx, reply, signedIn, { error, form: { name: read.name, keyId } }, 409);
    }
    const created = await ctx.oauth.createAgentClient(signedIn.accountId, keyId, read.name);
    await ctx.pendingSecrets.keep(signedIn.id, created.clientId, {
      secret: created.clientSecret,
      made: "created",
    });
    return reply.redirect(`/agents/${created.clientId}/secret`, 303);
  };
}

/** The page a new client secret is shown on, once; opened again, it leads to the list with a notice. */
export function agentSecretPage(ctx: PortalContext) {
  return async (request: ClientRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const { clientId } = request.params;
    if (!isAgentClientId(clientId)) return sendPageError(ctx, reply, "not_found");
    const pending = await ctx.pendingSecrets.take(signedIn.id, clientId);
    if (!pending) return reply.redirect("/agents?done=secret-shown", 303);
    const client = await ctx.oauth.connections.get(clientId);
    if (client?.accountId !== signedIn.accountId) return sendPageError(ctx, reply, "not_found");
    const tokenUrl = `${ctx.settings.publicUrl}${OAUTH_ROUTES.token}`;
    return renderPage(ctx, reply, "agent-secret", {
      title: "Your new agent client",
      nav: "agents",
      client,
      secret: pending.secret,
      tokenUrl,
      mcpUrl: ctx.oauth.resource,
      snippet: tokenSnippet(tokenUrl, clientId, pending.secret, ctx.oauth.resource),
    });
  };
}

/** The token request an agent makes, as curl: the person's first step, copied with the secret in it. */
function tokenSnippet(tokenUrl: string, clientId: string, secret: string, resource: string): string {
  return [
    `curl -s ${tokenUrl} \\`,
    `  -u '${clientId}:${secret}' \\`,
    `  -d grant_type=client_credentials -d scope=${MCP_SCOPE} \\`,
    `  --data-urlencode resource=${resource}`,
  ].join("\n");
}

export function revokeAgentClient(ctx: PortalContext) {
  return async (request: ClientRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const { clientId } = request.params;
    const client = isAgentClientId(clientId) ? await ctx.oauth.connections.get(clientId) : undefined;
    if (client?.kind !== "client_credentials" || !(await ctx.oauth.disconnect(signedIn.accountId, clientId)))
      return sendPageError(ctx, reply, "not_found");
    request.log.info({ account_id: signedIn.accountId, client_id: clientId }, "agent client revoked");
    return reply.redirect("/agents?done=revoked", 303);
  };
}
