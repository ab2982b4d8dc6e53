/**
 * One key's balance and usage as JSON, for scripts (contracts' keyUsageReportSchema). A browser is
 * let in by its session; a script by the key's own secret (`x-api-key` or `Authorization: Bearer`),
 * which opens that key's usage and nothing else. Errors are `{error}`.
 */
import { KEY_ID_PATTERN } from "@rda/contracts";
import { hashApiKey, readApiKey } from "@rda/service-kit";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { field } from "../http/forms.ts";
import { sendPageError } from "../http/render.ts";
import { DEFAULT_USAGE_DAYS, usageReport } from "../usage-report.ts";
import { billingFailed } from "./keys.ts";

const MAX_DAYS = 400;

type Owner =
  | { account: string | undefined }
  | { refused: "sign_in_required" | "not_found" }
  | { throttled: number }
  | { failed: true };

export function usageJson(ctx: PortalContext) {
  return async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    const id = request.params.id;
    const days = readDays(field(request.query, "days"));
    if (days === undefined) {
      return reply.code(400).send({ error: `days must be a whole number from 1 to ${MAX_DAYS}` });
    }
    if (!KEY_ID_PATTERN.test(id)) return sendPageError(ctx, reply, "not_found", { json: true });
    const owner = await ownerOf(ctx, request, reply, id);
    if ("failed" in owner) return reply;
    if ("throttled" in owner) {
      return sendPageError(ctx, reply, "auth_failures_throttled", {
        json: true,
        retryAfterSeconds: owner.throttled,
      });
    }
    if ("refused" in owner) return sendPageError(ctx, reply, owner.refused, { json: true });
    const [shown, usage] = await Promise.all([
      ctx.billing.showKey(owner.account, id),
      ctx.billing.usage(owner.account, id, days),
    ]);
    if (!shown.ok) return billingFailed(ctx, reply, shown.error, true);
    if (!usage.ok) return billingFailed(ctx, reply, usage.error, true);
    if (!shown.value || !usage.value.found) return sendPageError(ctx, reply, "not_found", { json: true });
    return reply.type("application/json; charset=utf-8").send(usageReport(shown.value, usage.value.days));
  };
}

function readDays(raw: string | undefined): number | undefined {
  if (raw === undefined) return DEFAULT_USAGE_DAYS;
  const days = Number(raw);
  return /^\d{1,3}$/.test(raw) && days >= 1 && days <= MAX_DAYS ? days : undefined;
}

/**
 * The account to scope billing's answers to, or none when the key's own secret was presented. A key
 * that is refused (malformed, unknown or revoked) counts against the client's address, and a
 * throttled address has no key looked up: the gateway's limit on refused keys, so this address is
 * no cheaper way to guess keys or load billing than the API.
 */
async function ownerOf(
  ctx: PortalContext,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
): Promise<Owner> {
  if (request.signedIn) return { account: request.signedIn.accountId };
  const key = readApiKey(request.headers);
  // No key at all is a person who is not signed in: it costs nothing and is not counted.
  if (!key.ok && key.error === "missing") return { refused: "sign_in_required" };
  const wait = ctx.failedAuth.throttledFor(request.ip);
  if (wait !== undefined) return { throttled: wait };
  if (!key.ok) {
    ctx.failedAuth.refused(request.ip);
    return { refused: "sign_in_required" };
  }
  const found = await ctx.billing.lookup(hashApiKey(key.value));
  if (!found.ok) {
    await billingFailed(ctx, reply, found.error, true);
    return { failed: true };
  }
  if (!found.value.found) {
    ctx.failedAuth.refused(request.ip);
    return { refused: "sign_in_required" };
  }
  // A valid secret of another key opens nothing here, and says nothing about this id.
  return found.value.key.id === id ? { account: undefined } : { refused: "not_found" };
}
