/** Top-ups priced by the spec's ladder, idempotent by request id and journaled as `topup`. */
import type { topUpReplySchema } from "@rda/contracts";
import type { z } from "zod";
import { creditsForCents, MINIMUM_TOP_UP_CENTS } from "../pricing.ts";
import { type LedgerContext, MARKER_TTL_SECONDS, scriptReply } from "./context.ts";
import { topUpScript } from "./scripts.ts";

export type TopUpReply = z.infer<typeof topUpReplySchema>;

export async function topUp(
  context: LedgerContext,
  keyId: string,
  usdCents: number,
  requestId: string,
): Promise<TopUpReply> {
  const credits = creditsForCents(usdCents);
  if (credits === undefined) return { outcome: "below_minimum", minimum_usd_cents: MINIMUM_TOP_UP_CENTS };
  const { keys } = context;
  const reply = await topUpScript.run(
    context.redis,
    [keys.keyRecord(keyId), keys.journal(keyId), keys.topUpMarker(keyId, requestId)],
    [credits, requestId, context.now(), MARKER_TTL_SECONDS.topUp],
  );
  const [outcome, added = 0, balance = 0] = scriptReply(reply);
  if (outcome === "ok") return { outcome, credits_added: added, credits_balance: balance };
  if (outcome === "not_found" || outcome === "revoked") return { outcome };
  throw new Error(`unexpected top-up outcome '${outcome}'`);
}
