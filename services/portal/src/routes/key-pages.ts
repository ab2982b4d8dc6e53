/**
 * What a key's monitor and export pages start with: the key, as billing shows it to the signed-in
 * account (its label and balance are on the page; another account's key is a 404 before anything is
 * asked), and the one way those pages ask the gateway about it (gateway-client.ts). The gateway
 * checks that the key is the account's, and the owning service that a monitor or an export is the
 * key's and what state it is in (a monitor's `paused_for_credits` included): the pages show what
 * they answer, and keep no copy of those rules.
 */
import { KEY_ID_PATTERN, type KeyDetails } from "@rda/contracts";
import type { PortalCaller } from "@rda/service-kit";
import type { FastifyReply } from "fastify";
import type { PortalContext } from "../context.ts";
import { type CallOptions, type GatewayAnswer, isUnavailable } from "../gateway-client.ts";
import type { PageErrorCode } from "../http/page-errors.ts";
import { renderPage, sendPageError } from "../http/render.ts";
import type { SignedIn } from "../http/session.ts";
import { billingFailed } from "./keys.ts";

/** A key of the signed-in account, and whom the gateway is asked for. */
export interface Loaded {
  readonly key: KeyDetails;
  readonly caller: PortalCaller;
}

/** The key, when it is the signed-in account's, and whom to ask about it; else the answer sent. */
export async function ownerOf(
  ctx: PortalContext,
  reply: FastifyReply,
  signedIn: SignedIn,
  keyId: string,
  json = false,
): Promise<Loaded | { readonly sent: FastifyReply }> {
  if (!KEY_ID_PATTERN.test(keyId)) return { sent: await sendPageError(ctx, reply, "not_found", { json }) };
  const shown = await ctx.billing.showKey(signedIn.accountId, keyId);
  if (!shown.ok) return { sent: await billingFailed(ctx, reply, shown.error) };
  if (!shown.value) return { sent: await sendPageError(ctx, reply, "not_found", { json }) };
  return { key: shown.value, caller: { keyId, accountId: signedIn.accountId } };
}

/** The gateway's refusal a page shows: its sentence, its status, the field at fault. */
export type Refusal = Extract<GatewayAnswer, { ok: false }>;

export interface AskOptions extends CallOptions {
  /** The page shown when the gateway or the service behind it does not answer. */
  readonly unavailable: "monitors_unavailable" | "exports_unavailable";
  /** For htmx's panels: errors as `{error}` JSON. */
  readonly json?: boolean;
}

/**
 * One call for the key: the gateway's `data`, or its refusal for the page to show, or the answer
 * already sent: no answer or a 5xx is the "unavailable, retry" page; a key the gateway does not take
 * (revoked, or not the account's since) and a thing the key does not hold are not found.
 */
export async function askGateway(
  ctx: PortalContext,
  reply: FastifyReply,
  loaded: Loaded,
  method: "GET" | "POST" | "DELETE",
  path: string,
  options: AskOptions,
): Promise<{ readonly data: unknown } | { readonly refused: Refusal } | { readonly sent: FastifyReply }> {
  const { unavailable, json, ...call } = options;
  const answer = await ctx.gateway.call(loaded.caller, method, path, {
    ...call,
    requestId: reply.request.id,
  });
  const failed = (internal: string, retryAfterSeconds = 5) =>
    sendPageError(ctx, reply, unavailable, { retryAfterSeconds, internal, json });
  if (isUnavailable(answer)) return { sent: await failed(answer.unavailable) };
  if (answer.ok) return { data: answer.data };
  if (answer.status >= 500)
    return { sent: await failed(`${answer.code}: ${answer.error}`, answer.retryAfterSeconds) };
  if (answer.status === 401 || answer.status === 404) {
    const code: PageErrorCode = "not_found";
    return { sent: await sendPageError(ctx, reply, code, { internal: `gateway: ${answer.code}`, json }) };
  }
  return { refused: answer };
}

/** A page for the gateway's refusal where there is no form to show it on: its catalog sentence, with its status. */
export function renderRefusalPage(ctx: PortalContext, reply: FastifyReply, refused: Refusal, title: string) {
  if (refused.retryAfterSeconds !== undefined) reply.header("retry-after", String(refused.retryAfterSeconds));
  return renderPage(ctx, reply, "error", { title, error: { title, message: refused.error } }, refused.status);
}
