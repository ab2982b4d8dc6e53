/**
 * Asking billing: one call for every entry of `BILLING_RPC` (@rda/contracts), which pairs the
 * subject with its request and reply schemas, so the gateway, the portal and the operator CLI cannot
 * pair them differently. Failures are `NatsRequestFailure` values, as with `requestJson`.
 */
import {
  BILLING_RPC,
  type BillingRpcName,
  type BillingRpcReply,
  type BillingRpcRequest,
  type Result,
  type Subjects,
} from "@rda/contracts";
import { type NatsConnection, type NatsRequestFailure, requestJson } from "./nats.ts";

export type BillingAnswer<N extends BillingRpcName> = Promise<Result<BillingRpcReply<N>, NatsRequestFailure>>;

export interface BillingCaller {
  /** Sends one call; `timeoutMs` overrides the caller's default (a slow `verifyLedger`). */
  call<N extends BillingRpcName>(
    name: N,
    request: BillingRpcRequest<N>,
    timeoutMs?: number,
  ): BillingAnswer<N>;
}

export function billingCaller(nats: NatsConnection, subjects: Subjects, timeoutMs: number): BillingCaller {
  return {
    call(name, request, timeout = timeoutMs) {
      const { reply } = BILLING_RPC[name];
      return requestJson(nats, subjects.billing[name], request, reply, timeout) as BillingAnswer<typeof name>;
    },
  };
}

/**
 * Billing of work that spends on its own (an export's page, a monitor's webhook batch): 1 credit
 * debited under the work's own id before it runs, so a retry after a crash is charged once; settled
 * once the work is done, or refunded through `billing.refund` (exactly once, the same id) when it
 * failed for good.
 */
export interface PrepaidWorkBilling {
  /** Undefined when billing did not answer: try again later, nothing was decided. */
  debit(keyId: string, debitId: string): Promise<BillingRpcReply<"debitExportPage"> | undefined>;
  settle(keyId: string, debitId: string): Promise<boolean>;
  refund(keyId: string, debitId: string, reason: string): Promise<boolean>;
}

export function prepaidWorkBilling(
  billing: BillingCaller,
  debitRpc: "debitExportPage" | "debitMonitorBatch",
): PrepaidWorkBilling {
  return {
    async debit(keyId, debitId) {
      const reply = await billing.call(debitRpc, { key_id: keyId, debit_id: debitId });
      return reply.ok ? reply.value : undefined;
    },
    async settle(keyId, debitId) {
      return (await billing.call("settle", { debits: [{ key_id: keyId, request_id: debitId }] })).ok;
    },
    async refund(keyId, debitId, reason) {
      return (await billing.call("refund", { key_id: keyId, request_id: debitId, reason })).ok;
    },
  };
}
