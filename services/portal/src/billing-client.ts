/**
 * The portal's side of billing's key-management subjects. Billing owns every key and the ledger; the
 * portal only asks, always with the signed-in account's id, so billing itself answers "not found"
 * for another account's key. Every way of not getting an answer is a `NatsRequestFailure` value.
 */
import {
  type ApplyPaymentReply,
  type ApplyPaymentRequest,
  applyPaymentReplySchema,
  type CreateKeyReply,
  createKeyReplySchema,
  type KeyDetails,
  type KeyUsageReply,
  keyUsageReplySchema,
  type ListKeysReply,
  type LookupKeyReply,
  listKeysReplySchema,
  listPaymentsReplySchema,
  lookupKeyReplySchema,
  type Payment,
  type Result,
  type ReversePaymentReply,
  type ReversePaymentRequest,
  reversePaymentReplySchema,
  revokeKeyReplySchema,
  rotateKeyReplySchema,
  type SetSpendCapReply,
  type Subjects,
  setLowBalanceThresholdReplySchema,
  setSpendCapReplySchema,
  showKeyReplySchema,
} from "@rda/contracts";
import { type NatsConnection, type NatsRequestFailure, requestJson } from "@rda/service-kit";
import type { z } from "zod";

type Answer<T> = Promise<Result<T, NatsRequestFailure>>;

export type RevokeOutcome = z.infer<typeof revokeKeyReplySchema>["outcome"];
export type RotateReply = z.infer<typeof rotateKeyReplySchema>;

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
  const { nats, timeoutMs } = deps;
  const subjects = deps.subjects.billing;
  const ask = <S extends z.ZodType>(subject: string, payload: unknown, schema: S) =>
    requestJson(nats, subject, payload, schema, timeoutMs);
  const map = async <T, U>(answer: Answer<T>, pick: (value: T) => U): Answer<U> => {
    const result = await answer;
    return result.ok ? { ok: true, value: pick(result.value) } : result;
  };
  return {
    listKeys: (account_id) => ask(subjects.listKeys, { account_id }, listKeysReplySchema),
    createKey: (account_id, label) =>
      ask(subjects.createAccountKey, { account_id, label }, createKeyReplySchema),
    showKey: (account_id, id) =>
      map(ask(subjects.showKey, { id, account_id }, showKeyReplySchema), (reply) =>
        reply.found ? reply.key : undefined,
      ),
    revokeKey: (account_id, id) =>
      map(ask(subjects.revokeAccountKey, { id, account_id }, revokeKeyReplySchema), (reply) => reply.outcome),
    rotateKey: (account_id, id) => ask(subjects.rotateAccountKey, { id, account_id }, rotateKeyReplySchema),
    usage: (account_id, id, days) => ask(subjects.keyUsage, { id, account_id, days }, keyUsageReplySchema),
    setLowBalanceThreshold: (account_id, low_balance_threshold) =>
      ask(
        subjects.setLowBalanceThreshold,
        { account_id, low_balance_threshold },
        setLowBalanceThresholdReplySchema,
      ),
    setSpendCap: (account_id, id, monthly_cap) =>
      ask(subjects.setAccountSpendCap, { id, account_id, monthly_cap }, setSpendCapReplySchema),
    lookup: (key_hash) => ask(subjects.lookupKey, { key_hash }, lookupKeyReplySchema),
    applyPayment: (request) => ask(subjects.applyPayment, request, applyPaymentReplySchema),
    reversePayment: (request) => ask(subjects.reversePayment, request, reversePaymentReplySchema),
    payments: (account_id) =>
      map(ask(subjects.listPayments, { account_id }, listPaymentsReplySchema), (reply) => reply.payments),
  };
}
