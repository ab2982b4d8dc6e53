export { type Admission, admit, type Reserve } from "./admission.ts";
export { ALL_SCRIPTS as ADMISSION_SCRIPTS } from "./admission-scripts.ts";
export {
  createKey,
  type KeyDefaults,
  lookupKey,
  type RevokeOutcome,
  revokeKey,
  rotateKey,
  showKey,
} from "./api-keys.ts";
export type { LedgerContext } from "./context.ts";
export { listAccountKeys, listKeysByLabel } from "./key-lists.ts";
export { setLowBalanceThreshold } from "./low-balance.ts";
export { PAYMENT_SCRIPTS } from "./payment-scripts.ts";
export { applyPayment, listPayments, reversePayment } from "./payments.ts";
export {
  type DebitId,
  type RefundEnd,
  type RefundOutcome,
  refund,
  refundReply,
  settle,
  voidDueDebits,
} from "./pending-debits.ts";
export { type RedisClock, startRedisClock } from "./redis-clock.ts";
export { ALL_SCRIPTS } from "./scripts.ts";
export { SPEND_CAP_SCRIPTS, setSpendCap } from "./spend-caps.ts";
export { type TopUpReply, topUp } from "./top-ups.ts";
export { readUsage } from "./usage.ts";
export { type VerifyReply, verifyLedger } from "./verify.ts";
