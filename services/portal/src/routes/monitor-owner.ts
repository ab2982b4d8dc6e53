/**
 * What every monitor page starts with: the key, once billing confirmed it is the signed-in
 * account's (another account's key is a 404 before the monitors service is asked anything), and
 * who asks for its monitors. Whether they show `paused_for_credits` is the monitors service's to say.
 */
import { KEY_ID_PATTERN, type KeyDetails, MONITOR_ID_PATTERN } from "@rda/contracts";
import type { NatsRequestFailure } from "@rda/service-kit";
import type { FastifyReply } from "fastify";
import type { PortalContext } from "../context.ts";
import { sendPageError } from "../http/render.ts";
import type { SignedIn } from "../http/session.ts";
import type { MonitorOwner } from "../monitors-client.ts";
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

export function monitorsFailed(ctx: PortalContext, reply: FastifyReply, failure: NatsRequestFailure) {
  return sendPageError(ctx, reply, "monitors_unavailable", {
    retryAfterSeconds: 5,
    internal: `${failure.kind}: ${failure.message}`,
  });
}

/** A key of the signed-in account, and who asks the monitors service for its monitors. */
export interface Loaded {
  readonly key: KeyDetails;
  readonly owner: MonitorOwner;
}

/** The key, when it is the signed-in account's, and who asks for its monitors; else the answer sent. */
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
  const key: KeyDetails = shown.value;
  const owner: MonitorOwner = { keyId, accountId: signedIn.accountId };
  return { key, owner };
}
