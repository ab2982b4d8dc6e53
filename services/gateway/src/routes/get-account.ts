/**
 * GET /v1/account (docs/api.md#account): free, no upstream call, the balance read fresh by billing,
 * still authenticated and rate limited by the key's own bucket (no upstream turn) — the same
 * admission as a data request with 0 credits. It answers only 200, 401 or 429 by contract, so its
 * query string is ignored rather than refused with 400; 503 remains for an outage of NATS or
 * billing, where no honest 200 or 401 can be given (docs/api.md#amendments-to-the-original-contract).
 */
import { type Account, type MonthlySpend, type MonthSpend, monthResetsAt, OPERATIONS } from "@rda/contracts";
import { admitThroughBilling } from "../core/admission.ts";
import { envelope, sendEnvelope, setRateLimitHeaders } from "../http/answers.ts";
import { authenticate } from "../http/authenticate.ts";
import { sendError } from "../http/send-error.ts";
import type { GatewayRoute } from "./index.ts";

const operation = OPERATIONS.getAccount;

export const getAccount: GatewayRoute = {
  path: operation.path,
  operation,
  build: (ctx) => async (request, reply) => {
    const key = await authenticate(request, ctx);
    if (!key.ok) return sendError(reply, key.error, ctx.errors);
    const admission = await admitThroughBilling(ctx, key.value, {
      requestId: request.id,
      operation: operation.operationId,
      credits: operation.credits,
    });
    if (admission.bucket) setRateLimitHeaders(reply, admission.bucket);
    if (!admission.ok) return sendError(reply, admission.error, ctx.errors);
    const { balance, bucket, monthSpend, lowBalanceThreshold } = admission.value;
    const data: Account = {
      credits_balance: balance,
      rate_limit: { qps: bucket.qps, burst: bucket.burst },
      low_balance_threshold: lowBalanceThreshold,
      spend: monthlySpendOf(monthSpend),
    };
    const service = { credits_used: operation.credits, credits_remaining: balance };
    return sendEnvelope(reply, envelope(Buffer.from(JSON.stringify(data)), service), service);
  },
};

/** The admission's month figures as the account object shows them. */
function monthlySpendOf(spend: MonthSpend): MonthlySpend {
  return {
    month: spend.month,
    credits_spent: spend.spent,
    monthly_cap: spend.cap,
    resets_at: monthResetsAt(spend.month),
  };
}
