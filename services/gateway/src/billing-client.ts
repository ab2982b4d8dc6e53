/**
 * The gateway's side of billing's hot-path subjects (contracts/messages.ts). Replies are validated;
 * billing's own store failures arrive as `{outcome: "failure"}` values, never as exceptions.
 */
import {
  type BalanceReply,
  balanceReplySchema,
  billingFailureSchema,
  type DebitReply,
  debitReplySchema,
  type LookupKeyReply,
  lookupKeyReplySchema,
  type Subjects,
} from "@rda/contracts";
import { type NatsConnection, type NatsRequestOutcome, requestJson } from "@rda/service-kit";
import { z } from "zod";
import type { GatewayMetrics } from "./metrics.ts";

export type BillingFailure = z.infer<typeof billingFailureSchema>;

const lookupSchema = z.union([lookupKeyReplySchema, billingFailureSchema]);
const debitSchema = z.union([debitReplySchema, billingFailureSchema]);
const balanceSchema = z.union([balanceReplySchema, billingFailureSchema]);

export interface BillingClient {
  lookup(keyHash: string): Promise<NatsRequestOutcome<LookupKeyReply | BillingFailure>>;
  debit(keyId: string, requestId: string): Promise<NatsRequestOutcome<DebitReply | BillingFailure>>;
  balance(keyId: string): Promise<NatsRequestOutcome<BalanceReply | BillingFailure>>;
}

export function createBillingClient(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  timeoutMs: number;
  metrics: GatewayMetrics;
}): BillingClient {
  const { nats, subjects, timeoutMs, metrics } = deps;
  const timed = async <T>(name: string, subject: string, payload: unknown, schema: z.ZodType<T>) => {
    const started = performance.now();
    const outcome = await requestJson(nats, subject, payload, schema, timeoutMs);
    const label = outcome.ok ? "ok" : outcome.failure;
    metrics.natsRequestDuration.observe(
      { subject: name, outcome: label },
      (performance.now() - started) / 1000,
    );
    return outcome;
  };
  return {
    lookup: (keyHash) =>
      timed("billing.keys.lookup", subjects.billing.lookupKey, { key_hash: keyHash }, lookupSchema),
    debit: (keyId, requestId) =>
      timed("billing.debit", subjects.billing.debit, { key_id: keyId, request_id: requestId }, debitSchema),
    balance: (keyId) => timed("billing.balance", subjects.billing.balance, { key_id: keyId }, balanceSchema),
  };
}
