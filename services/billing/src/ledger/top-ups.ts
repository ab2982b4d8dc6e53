/**
 * Top-ups priced by the ladder of docs/api.md#top-ups, idempotent by request id and journaled as
 * `topup`; none may take a balance past `maxBalance` (BALANCE_LIMITS.maxCredits in production).
 */
import type { topUpReplySchema } from "@rda/contracts";
import { creditsForCents, MINIMUM_TOP_UP_CENTS } from "@rda/contracts";
import type { z } from "zod";
import { type LedgerContext, MARKER_TTL_SECONDS, scriptReply, USAGE_TTL_SECONDS, utcDay } from "./context.ts";
import { topUpScript } from "./scripts.ts";

export type TopUpReply = z.infer<typeof topUpReplySchema>;

export async function topUp(
  context: LedgerContext,
  keyId: string,
  usdCents: number,
  requestId: string,
  maxBalance: number,
): Promise<TopUpReply> {
  const credits = creditsForCents(usdCents);
  if (credits === undefined) return { outcome: "below_minimum", minimum_usd_cents: MINIMUM_TOP_UP_CENTS };
  const { keys } = context;
  const now = context.now();
  const reply = await topUpScript.run(
    context.redis,
    [
      keys.keyRecord(keyId),
      keys.journal(keyId),
      keys.topUpMarker(keyId, requestId),
      keys.usageDay(keyId, utcDay(now)),
    ],
    [credits, requestId, now, MARKER_TTL_SECONDS.topUp, usdCents, USAGE_TTL_SECONDS, maxBalance],
  );
  const [outcome, added = 0, balance = 0] = scriptReply(reply);
  if (outcome === "ok") return { outcome, credits_added: added, credits_balance: balance };
  if (outcome === "not_found" || outcome === "revoked") return { outcome };
  if (outcome === "balance_limit") {
    return { outcome, max_balance: maxBalance, credits_balance: balance };
  }
  throw new Error(`unexpected top-up outcome '${outcome}'`);
}
