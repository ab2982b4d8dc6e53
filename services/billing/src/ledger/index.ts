export {
  createKey,
  type KeyDefaults,
  lookupKey,
  type RevokeOutcome,
  readBalance,
  revokeKey,
  showKey,
} from "./api-keys.ts";
export { type LedgerContext, MARKER_TTL_SECONDS } from "./context.ts";
export { debit, type RefundResult, refund } from "./debits.ts";
export { ALL_SCRIPTS } from "./scripts.ts";
export { type TopUpReply, topUp } from "./top-ups.ts";
export { type VerifyReply, verifyLedger } from "./verify.ts";
