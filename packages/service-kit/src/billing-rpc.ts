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
