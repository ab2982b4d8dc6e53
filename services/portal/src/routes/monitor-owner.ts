/**
 * What every monitor page starts with: the key, as billing shows it to the signed-in account (its
 * label and balance are on the page; another account's key is a 404 before anything is asked), and
 * the one way the pages ask the gateway for its monitors (gateway-client.ts). The gateway checks the
 * key is the account's, the monitors service that a monitor is the key's and what its status is
 * (`paused_for_credits` included): the pages show what they answer.
 */
import { KEY_ID_PATTERN, type KeyDetails, MONITOR_ID_PATTERN } from "@rda/contracts";
import type { PortalCaller } from "@rda/service-kit";
import type { FastifyReply } from "fastify";
import type { PortalContext } from "../context.ts";
import { type CallOptions, type GatewayAnswer, isUnavailable } from "../gateway-client.ts";
import { renderPage, sendPageError } from "../http/render.ts";
import type { SignedIn } from "../http/session.ts";
import { billingFailed } from "./keys.ts";

export type MonitorParams = { Params: { id: string; monitorId: string } };

export const MONITOR_ID = MONITOR_ID_PATTERN;

/** What a person sees for each status the service reports. */
export const MONITOR_STATUS_LABELS: Record<string, string> = {
  backfilling: "Active: collecting history",
  live: "Active",
  paused: "Paused",
  paused_for_credits: "Paused for credits",
  failing: "Failing",
  revoked: "Stopped: its key was revoked",
};

export function monitorsFailed(
  ctx: PortalContext,
  reply: FastifyReply,
  internal: string,
  retryAfterSeconds = 5,
) {
  return sendPageError(ctx, reply, "monitors_unavailable", { retryAfterSeconds, internal });
}

/** A key of the signed-in account, and whom the gateway is asked for. */
export interface Loaded {
  readonly key: KeyDetails;
  readonly caller: PortalCaller;
}

/** The key, when it is the signed-in account's, and whom to ask for its monitors; else the answer sent. */
export async function ownerOf(
  ctx: PortalContext,
  reply: FastifyReply,
  signedIn: SignedIn,
  keyId: string,
): Promise<Loaded | { readonly sent: FastifyReply }> {
  if (!KEY_ID_PATTERN.test(keyId)) return { sent: await sendPageError(ctx, reply, "not_found") };
  const shown = await ctx.billing.showKey(signedIn.accountId, keyId);
  if (!shown.ok) return { sent: await billingFailed(ctx, reply, shown.error) };
  if (!shown.value) return { sent: await sendPageError(ctx, reply, "not_found") };
  return { key: shown.value, caller: { keyId, accountId: signedIn.accountId } };
}

/** The gateway's refusal a page shows: its sentence, its status, the field at fault. */
export type Refusal = Extract<GatewayAnswer, { ok: false }>;

/**
 * One call for the key: the gateway's `data`, or its refusal for the page to show, or the answer
 * already sent: no answer or a 5xx is the "unavailable, retry" page; a key the gateway does not take
 * (revoked, or not the account's since) and a monitor the key does not hold are not found.
 */
export async function askGateway(
  ctx: PortalContext,
  reply: FastifyReply,
  loaded: Loaded,
  method: "GET" | "POST" | "DELETE",
  path: string,
  options: CallOptions = {},
): Promise<{ readonly data: unknown } | { readonly refused: Refusal } | { readonly sent: FastifyReply }> {
  const answer = await ctx.gateway.call(loaded.caller, method, path, {
    ...options,
    requestId: reply.request.id,
  });
  if (isUnavailable(answer)) return { sent: await monitorsFailed(ctx, reply, answer.unavailable) };
  if (answer.ok) return { data: answer.data };
  if (answer.status >= 500)
    return {
      sent: await monitorsFailed(ctx, reply, `${answer.code}: ${answer.error}`, answer.retryAfterSeconds),
    };
  if (answer.status === 401 || answer.status === 404)
    return { sent: await sendPageError(ctx, reply, "not_found", { internal: `gateway: ${answer.code}` }) };
  return { refused: answer };
}

/** A refusal on a page without a form: the gateway's sentence, with its status. */
export function sendRefusal(ctx: PortalContext, reply: FastifyReply, refused: Refusal, title: string) {
  if (refused.retryAfterSeconds !== undefined) reply.header("retry-after", String(refused.retryAfterSeconds));
  return renderPage(ctx, reply, "error", { title, error: { title, message: refused.error } }, refused.status);
}
