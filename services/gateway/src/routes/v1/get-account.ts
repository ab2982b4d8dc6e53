/**
 * GET /v1/account (spec §4, getAccount): free, fresh balance from billing, no upstream call, still
 * authenticated and rate limited by the key's own bucket (not the reserve). Spec §7: it answers only
 * 200, 401 or 429, so its query string is ignored rather than refused with 400 (503 remains for an
 * outage of Redis or NATS, where no honest 200 or 401 can be given).
 */
import { OPERATIONS } from "@rda/contracts";
import { authenticateAndLimit } from "../../http/authenticate.ts";
import { sendEnvelope } from "../../http/envelope.ts";
import type { GatewayRoute } from "../../http/route.ts";
import { sendError } from "../../http/send-error.ts";

export const getAccount: GatewayRoute = {
  path: OPERATIONS.getAccount.path,
  operation: OPERATIONS.getAccount,
  build: (ctx) => async (request, reply) => {
    const key = await authenticateAndLimit(request, ctx, false);
    if (!key.ok) return sendError(reply, key.failure, ctx.errors);
    const balance = await ctx.billing.balance(key.value.id);
    if (!balance.ok || balance.value.outcome === "failure") {
      return sendError(reply, { code: "service_unavailable", retryAfterSeconds: 1 }, ctx.errors);
    }
    const account = balance.value;
    if (account.outcome === "unknown_key" || account.revoked) {
      ctx.keys.evict(key.value.id);
      return sendError(reply, { code: "invalid_api_key" }, ctx.errors);
    }
    const data = { credits_balance: account.balance, rate_limit: account.rate_limit };
    const body = Buffer.from(JSON.stringify(data));
    return sendEnvelope(reply, body, { credits_used: 0, credits_remaining: account.balance });
  },
};
