/** Typed billing calls for tests, through NATS exactly as the gateway and the CLI make them. */
import { randomUUID } from "node:crypto";
import {
  admitReplySchema,
  type CreateKeyRequest,
  createKeyReplySchema,
  keyChangedEventSchema,
  lookupKeyReplySchema,
  revokeKeyReplySchema,
  showKeyReplySchema,
  topUpReplySchema,
  verifyLedgerReplySchema,
  workDebitReplySchema,
} from "@rda/contracts";
import { hashApiKey } from "@rda/service-kit";
import type { Harness } from "./harness.ts";

/** All these need of a harness: its subjects and a way to ask billing. */
export type Asker = Pick<Harness, "subjects" | "request">;

export const newRequestId = () => `req-${randomUUID()}`;

/** A created key; a refusal (an account limit) fails the test. */
export async function createKey(h: Asker, request: CreateKeyRequest = {}) {
  const reply = await h.request(h.subjects.billing.createKey, request, createKeyReplySchema);
  if (reply.outcome !== "created") throw new Error(`key refused: ${JSON.stringify(reply)}`);
  return reply;
}

type PresentedKey = { id: string; key: string };

/** An admission as the gateway asks for it; `key` is the secret the caller presented. */
export function admit(
  h: Asker,
  key: PresentedKey,
  options: {
    requestId?: string;
    operation?: string;
    credits?: number;
    pendingMs?: number;
    tokens?: number;
  } = {},
) {
  const request = {
    key_id: key.id,
    key_hash: hashApiKey(key.key),
    request_id: options.requestId ?? newRequestId(),
    operation: options.operation ?? "listPosts",
    credits: options.credits ?? 1,
    tokens: options.tokens ?? 1,
    pending_ms: options.pendingMs ?? 60_000,
  };
  return h.request(h.subjects.billing.admit, request, admitReplySchema);
}

/** A data request's admission: one credit. */
export const debit = (h: Asker, key: PresentedKey, requestId = newRequestId(), operation = "listPosts") =>
  admit(h, key, { requestId, operation });

/** The balance as an operator reads it (no token of the key's bucket spent). */
/** A work debit as the exports and monitors workers ask for it: 1 credit, pending for a minute. */
export const debitWork = (
  h: Asker,
  keyId: string,
  workId: string,
  operation: "exportPage" | "monitorWebhookBatch" = "exportPage",
  pendingMs = 60_000,
) =>
  h.request(
    h.subjects.billing.debitWork,
    { key_id: keyId, work_id: workId, operation, credits: 1, pending_ms: pendingMs },
    workDebitReplySchema,
  );

export async function balanceOf(h: Asker, key: PresentedKey): Promise<number> {
  const reply = await h.request(h.subjects.billing.showKey, { id: key.id }, showKeyReplySchema);
  if (!reply.found) throw new Error(`no key ${key.id}`);
  return reply.key.credits_balance;
}

export const lookup = (h: Asker, keyHash: string) =>
  h.request(h.subjects.billing.lookupKey, { key_hash: keyHash }, lookupKeyReplySchema);

export const revoke = (h: Asker, id: string) =>
  h.request(h.subjects.billing.revokeKey, { id }, revokeKeyReplySchema);

export const topUp = (h: Asker, id: string, usdCents: number, requestId = newRequestId()) =>
  h.request(h.subjects.billing.topUp, { id, usd_cents: usdCents, request_id: requestId }, topUpReplySchema);

export const verify = (h: Asker) =>
  h.request(h.subjects.billing.verifyLedger, {}, verifyLedgerReplySchema, 30_000);

/**
 * Billing's key_changed events from now on, as "KEY_ID CHANGE" lines; subscribed (and flushed)
 * before it returns, so no event of the next step is missed. Call `stop` when done.
 */
export async function watchKeyChanges(h: Pick<Harness, "subjects" | "nats">) {
  const events: string[] = [];
  const subscription = h.nats.subscribe(h.subjects.billing.keyChanged, {
    callback: (_error, message) => {
      const event = keyChangedEventSchema.parse(message.json());
      events.push(`${event.key_id} ${event.change}`);
    },
  });
  await h.nats.flush();
  return { events, stop: () => subscription.unsubscribe() };
}
