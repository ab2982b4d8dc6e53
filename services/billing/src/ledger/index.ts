import { ADMISSION_SCRIPTS } from "./admission-scripts.ts";
import { PAYMENT_SCRIPTS } from "./payment-scripts.ts";
import { KEY_SCRIPTS } from "./scripts.ts";
import { SPEND_CAP_SCRIPTS } from "./spend-caps.ts";

export { type Admission, decideAdmission } from "./admission.ts";
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
export { type RedisClock, startRedisClock } from "./context.ts";
export { listAccountKeys, listKeysByLabel } from "./key-lists.ts";
export { type DebitFigures, setLowBalanceThreshold } from "./low-balance.ts";
export { applyPayment, listPayments, reversePayment } from "./payments.ts";
export {
  type DebitId,
  type RefundEnd,
  type RefundOutcome,
  refund,
  settle,
  voidDueDebits,
} from "./pending-debits.ts";
export { setSpendCap } from "./spend-caps.ts";
export { type TopUpReply, topUp } from "./top-ups.ts";
export { readUsage } from "./usage.ts";
export { type VerifyReply, verifyLedger } from "./verify.ts";
export { debitWork, type WorkDebit } from "./work-debits.ts";

/** Every script of the ledger, to load into Redis at start. */
export const LEDGER_SCRIPTS = [
  ...KEY_SCRIPTS,
  ...ADMISSION_SCRIPTS,
  ...PAYMENT_SCRIPTS,
  ...SPEND_CAP_SCRIPTS,
];
