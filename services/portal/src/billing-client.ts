/**
 * The portal's side of billing's key-management calls (BILLING_RPC in @rda/contracts). Billing owns every key and the ledger; the
 * portal only asks, always with the signed-in account's id, so billing itself answers "not found"
 * for another account's key. Every way of not getting an answer is a `NatsRequestFailure` value.
 */
import type {
  ApplyPaymentReply,
  ApplyPaymentRequest,
  BillingRpcReply,
  CreateKeyReply,
  KeyDetails,
  KeyUsageReply,
  ListKeysReply,
  LookupKeyReply,
  Payment,
  Result,
  ReversePaymentReply,
  ReversePaymentRequest,
  SetSpendCapReply,
  Subjects,
} from "@rda/contracts";
import { billingCaller, type NatsConnection, type NatsRequestFailure } from "@rda/service-kit";

type Answer<T> = Promise<Result<T, NatsRequestFailure>>;

export type RevokeOutcome = BillingRpcReply<"revokeAccountKey">["outcome"];
export type RotateReply = BillingRpcReply<"rotateAccountKey">;

export interface PortalBilling {
  listKeys(accountId: string): Answer<ListKeysReply>;
  createKey(accountId: string, label: string): Answer<CreateKeyReply>;
  showKey(accountId: string | undefined, keyId: string): Answer<KeyDetails | undefined>;
  revokeKey(accountId: string, keyId: string): Answer<RevokeOutcome>;
  rotateKey(accountId: string, keyId: string): Answer<RotateReply>;
  usage(accountId: string | undefined, keyId: string, days: number): Answer<KeyUsageReply>;
  /** The account's low-balance threshold for all its keys; null for the default. */
  setLowBalanceThreshold(accountId: string, threshold: number | null): Answer<{ keys_updated: number }>;
  /** The key's monthly spend cap in credits, or null for none. */
  setSpendCap(accountId: string, keyId: string, monthlyCap: number | null): Answer<SetSpendCapReply>;
  /** Which key a secret belongs to (its SHA-256 only), for scripts that read usage with the key. */
  lookup(keyHash: string): Answer<LookupKeyReply>;
  /** Card payments (billing.payments.*): credit a paid one, take back what went back, list them. */
  applyPayment(request: ApplyPaymentRequest): Answer<ApplyPaymentReply>;
  reversePayment(request: ReversePaymentRequest): Answer<ReversePaymentReply>;
  payments(accountId: string): Answer<Payment[]>;
}

export function createPortalBilling(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  timeoutMs: number;
}): PortalBilling {
  const billing = billingCaller(deps.nats, deps.subjects, deps.timeoutMs);
  const ask = billing.call;
  const map = async <T, U>(answer: Answer<T>, pick: (value: T) => U): Answer<U> => {
    const result = await answer;
    return result.ok ? { ok: true, value: pick(result.value) } : result;
  };
  return {
    listKeys: (account_id) => ask("listKeys", { account_id }),
    createKey: (account_id, label) => ask("createAccountKey", { account_id, label }),
    showKey: (account_id, id) =>
      map(ask("showKey", { id, account_id }), (reply) => (reply.found ? reply.key : undefined)),
    revokeKey: (account_id, id) => map(ask("revokeAccountKey", { id, account_id }), (reply) => reply.outcome),
    rotateKey: (account_id, id) => ask("rotateAccountKey", { id, account_id }),
    usage: (account_id, id, days) => ask("keyUsage", { id, account_id, days }),
    setLowBalanceThreshold: (account_id, low_balance_threshold) =>
      ask("setLowBalanceThreshold", { account_id, low_balance_threshold }),
    setSpendCap: (account_id, id, monthly_cap) => ask("setAccountSpendCap", { id, account_id, monthly_cap }),
    lookup: (key_hash) => ask("lookupKey", { key_hash }),
    applyPayment: (request) => ask("applyPayment", request),
    reversePayment: (request) => ask("reversePayment", request),
    payments: (account_id) => map(ask("listPayments", { account_id }), (reply) => reply.payments),
  };
}
