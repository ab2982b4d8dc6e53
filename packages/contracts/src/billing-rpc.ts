/**
 * Every request-reply call billing serves, once (the convention of rpc.ts): its subject (`buildSubjects(ns).billing[name]`),
 * the schema its request is decoded with, the schema its reply is decoded with, and whether a caller
 * may send it again after a timeout. Billing serves these entries and every caller (the gateway,
 * the portal, the operator CLI) asks through them, so a request and its reply cannot be paired
 * differently on the two sides.
 *
 * Safe to retry: sending the call twice has the effect of sending it once (reads, and writes keyed by
 * a request id or a payment id). Not safe: creating or rotating a key (a second secret), which a
 * caller must not repeat blindly.
 */

import {
  admitReplySchema,
  admitRequestSchema,
  lookupKeyReplySchema,
  lookupKeyRequestSchema,
  refundMessageSchema,
  refundReplySchema,
  settleReplySchema,
  settleRequestSchema,
  workDebitReplySchema,
  workDebitRequestSchema,
} from "./billing-messages.ts";
import {
  createAccountKeyRequestSchema,
  createKeyReplySchema,
  createKeyRequestSchema,
  keyUsageReplySchema,
  keyUsageRequestSchema,
  listKeysReplySchema,
  listKeysRequestSchema,
  revokeAccountKeyRequestSchema,
  revokeKeyReplySchema,
  revokeKeyRequestSchema,
  rotateAccountKeyRequestSchema,
  rotateKeyReplySchema,
  rotateKeyRequestSchema,
  setAccountSpendCapRequestSchema,
  setLowBalanceThresholdReplySchema,
  setLowBalanceThresholdRequestSchema,
  setSpendCapReplySchema,
  setSpendCapRequestSchema,
  showKeyReplySchema,
  showKeyRequestSchema,
  topUpReplySchema,
  topUpRequestSchema,
  verifyLedgerReplySchema,
  verifyLedgerRequestSchema,
} from "./key-messages.ts";
import {
  applyPaymentReplySchema,
  applyPaymentRequestSchema,
  listPaymentsReplySchema,
  listPaymentsRequestSchema,
  reversePaymentReplySchema,
  reversePaymentRequestSchema,
} from "./payments.ts";
import { type RpcDecoded, type RpcReply, type RpcRequest, rpc } from "./rpc.ts";

export const BILLING_RPC = {
  lookupKey: rpc(lookupKeyRequestSchema, lookupKeyReplySchema, true),
  // A retried admission finds its own debit record and answers it again, debiting nothing more.
  admit: rpc(admitRequestSchema, admitReplySchema, true),
  settle: rpc(settleRequestSchema, settleReplySchema, true),
  refund: rpc(refundMessageSchema, refundReplySchema, true),
  createKey: rpc(createKeyRequestSchema, createKeyReplySchema, false),
  showKey: rpc(showKeyRequestSchema, showKeyReplySchema, true),
  listKeys: rpc(listKeysRequestSchema, listKeysReplySchema, true),
  revokeKey: rpc(revokeKeyRequestSchema, revokeKeyReplySchema, true),
  rotateKey: rpc(rotateKeyRequestSchema, rotateKeyReplySchema, false),
  createAccountKey: rpc(createAccountKeyRequestSchema, createKeyReplySchema, false),
  revokeAccountKey: rpc(revokeAccountKeyRequestSchema, revokeKeyReplySchema, true),
  rotateAccountKey: rpc(rotateAccountKeyRequestSchema, rotateKeyReplySchema, false),
  // Setting a cap or a threshold to a value twice leaves it at that value.
  setSpendCap: rpc(setSpendCapRequestSchema, setSpendCapReplySchema, true),
  setAccountSpendCap: rpc(setAccountSpendCapRequestSchema, setSpendCapReplySchema, true),
  setLowBalanceThreshold: rpc(setLowBalanceThresholdRequestSchema, setLowBalanceThresholdReplySchema, true),
  keyUsage: rpc(keyUsageRequestSchema, keyUsageReplySchema, true),
  topUp: rpc(topUpRequestSchema, topUpReplySchema, true),
  verifyLedger: rpc(verifyLedgerRequestSchema, verifyLedgerReplySchema, true),
  // Keyed by the work's id: work retried after a crash finds its record and is charged once.
  debitWork: rpc(workDebitRequestSchema, workDebitReplySchema, true),
  applyPayment: rpc(applyPaymentRequestSchema, applyPaymentReplySchema, true),
  reversePayment: rpc(reversePaymentRequestSchema, reversePaymentReplySchema, true),
  listPayments: rpc(listPaymentsRequestSchema, listPaymentsReplySchema, true),
} as const;

export type BillingRpc = typeof BILLING_RPC;
export type BillingRpcName = keyof BillingRpc;
export type BillingRpcRequest<N extends BillingRpcName> = RpcRequest<BillingRpc, N>;
export type BillingRpcDecoded<N extends BillingRpcName> = RpcDecoded<BillingRpc, N>;
export type BillingRpcReply<N extends BillingRpcName> = RpcReply<BillingRpc, N>;
