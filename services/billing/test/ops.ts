/** Typed billing calls for tests, through NATS exactly as the gateway and the CLI make them. */
import { randomUUID } from "node:crypto";
import {
  balanceReplySchema,
  type CreateKeyRequest,
  createKeyReplySchema,
  debitReplySchema,
  lookupKeyReplySchema,
  revokeKeyReplySchema,
  topUpReplySchema,
  verifyLedgerReplySchema,
} from "@rda/contracts";
import type { Harness } from "./harness.ts";

export const newRequestId = () => `req-${randomUUID()}`;

export const createKey = (h: Harness, request: CreateKeyRequest = {}) =>
  h.request(h.subjects.billing.createKey, request, createKeyReplySchema);

export const debit = (h: Harness, keyId: string, requestId = newRequestId()) =>
  h.request(h.subjects.billing.debit, { key_id: keyId, request_id: requestId }, debitReplySchema);

export async function balanceOf(h: Harness, keyId: string): Promise<number> {
  const reply = await h.request(h.subjects.billing.balance, { key_id: keyId }, balanceReplySchema);
  if (reply.outcome !== "ok") throw new Error(`no balance for ${keyId}: ${reply.outcome}`);
  return reply.balance;
}

export const lookup = (h: Harness, keyHash: string) =>
  h.request(h.subjects.billing.lookupKey, { key_hash: keyHash }, lookupKeyReplySchema);

export const revoke = (h: Harness, id: string) =>
  h.request(h.subjects.billing.revokeKey, { id }, revokeKeyReplySchema);

export const topUp = (h: Harness, id: string, usdCents: number, requestId = newRequestId()) =>
  h.request(h.subjects.billing.topUp, { id, usd_cents: usdCents, request_id: requestId }, topUpReplySchema);

export const verify = (h: Harness) =>
  h.request(h.subjects.billing.verifyLedger, {}, verifyLedgerReplySchema, 30_000);
