/**
 * Every billing subject and its handler, in one place (explicit wiring). The hot path (lookup,
 * admit, settle, refund) is bounded by a short store timeout; key management (key-commands.ts) by a
 * longer one.
 */
import {
  type admitRequestSchema,
  BILLING_RPC,
  type BillingRpcDecoded,
  type BillingRpcName,
  decodeJson,
  type NoticeEvent,
  type RefundMessage,
  type Subjects,
  type WorkDebitRequest,
} from "@rda/contracts";
import {
  isStoreFailure,
  type Logger,
  type NatsConnection,
  publishNoticeEvent,
  type RequestHandler,
  ServiceError,
} from "@rda/service-kit";
import type { z } from "zod";
import { addCredits, capSpend, create, list, revoke, rotate, show, usage, verify } from "./key-commands.ts";
import {
  type DebitFigures,
  type DebitId,
  debitWork,
  decideAdmission,
  type LedgerContext,
  lookupKey,
  type RedisClock,
  refund,
  setLowBalanceThreshold,
  settle,
} from "./ledger/index.ts";
import type { PaymentCommandDeps } from "./payment-commands.ts";
import * as payments from "./payment-commands.ts";

export interface EndpointDeps extends PaymentCommandDeps {
  readonly storeTimeoutMs: number;
  readonly redisClock: RedisClock;
}

export function billingEndpoints(deps: EndpointDeps): { subject: string; handler: RequestHandler }[] {
  const { context, logger, subjects } = deps;
  const onRefused = (subject: string) => deps.metrics.refusedRequests.inc({ subject });
  const onBug = (subject: string) => deps.metrics.internalErrors.inc({ subject });
  const hot = { logger, onRefused, onBug, timeoutMs: deps.storeTimeoutMs };
  const manage = { logger, onRefused, onBug, timeoutMs: deps.storeTimeoutMs * 5 };
  // Unbounded: verifying a large ledger takes as long as it takes.
  const unbounded = { logger, onRefused, onBug };
  return [
    billingEndpoint(subjects, "lookupKey", (r) => lookupKey(context, r), hot),
    billingEndpoint(subjects, "admit", (r) => admitAndCount(deps, r), hot),
    billingEndpoint(subjects, "settle", (r) => settleAndCount(deps, r.debits), hot),
    billingEndpoint(subjects, "refund", (r) => refundAndCount(deps, r), hot),
    billingEndpoint(subjects, "debitWork", (r) => debitWorkAndCount(deps, r), hot),
    billingEndpoint(subjects, "createKey", (r) => create(deps, r), manage),
    billingEndpoint(subjects, "showKey", (r) => show(deps, r), manage),
    billingEndpoint(subjects, "listKeys", (r) => list(deps, r), manage),
    billingEndpoint(subjects, "revokeKey", (r) => revoke(deps, r), manage),
    billingEndpoint(subjects, "rotateKey", (r) => rotate(deps, r), manage),
    billingEndpoint(subjects, "createAccountKey", (r) => create(deps, r), manage),
    billingEndpoint(subjects, "revokeAccountKey", (r) => revoke(deps, r), manage),
    billingEndpoint(subjects, "rotateAccountKey", (r) => rotate(deps, r), manage),
    billingEndpoint(
      subjects,
      "setLowBalanceThreshold",
      async (r) => ({
        keys_updated: await setLowBalanceThreshold(context, r.account_id, r.low_balance_threshold),
      }),
      manage,
    ),
    billingEndpoint(subjects, "setSpendCap", (r) => capSpend(deps, r), manage),
    billingEndpoint(subjects, "setAccountSpendCap", (r) => capSpend(deps, r), manage),
    billingEndpoint(subjects, "keyUsage", (r) => usage(deps, r), manage),
    billingEndpoint(subjects, "topUp", (r) => addCredits(deps, r), manage),
    billingEndpoint(subjects, "applyPayment", (r) => payments.apply(deps, r), manage),
    billingEndpoint(subjects, "reversePayment", (r) => payments.reverse(deps, r), manage),
    billingEndpoint(subjects, "listPayments", (r) => payments.list(deps, r), manage),
    billingEndpoint(subjects, "verifyLedger", () => verify(deps), unbounded),
  ];
}

/** Admission, with its outcome counted for data requests (a request that takes credits). */
async function admitAndCount(deps: EndpointDeps, r: z.output<typeof admitRequestSchema>) {
  const reply = await decideAdmission(deps.context, {
    keyId: r.key_id,
    keyHash: r.key_hash ?? "",
    requestId: r.request_id,
    operation: r.operation,
    credits: r.credits,
    tokens: r.tokens,
    pendingMs: r.pending_ms,
    // The moment the endpoint stops waiting (`billingEndpoint` below) and answers 503.
    deadline: deps.redisClock.now() + deps.storeTimeoutMs,
  });
  if (reply.outcome === "expired")
    throw new ServiceError(503, "the admission reached the ledger store after billing stopped waiting");
  if (r.credits > 0) deps.metrics.debits.inc({ outcome: reply.outcome });
  if (reply.outcome === "admitted") publishCrossings(deps, r.key_id, crossingsOf(r.key_id, r.credits, reply));
  return reply;
}

/**
 * A work debit (ledger/work-debits.ts), counted with the debits and telling the lines it crossed
 * like an admission. A refusal is answered with why; pausing the work and telling the account of
 * the pause is the caller's (service-kit work-billing.ts).
 */
async function debitWorkAndCount(deps: EndpointDeps, r: Required<WorkDebitRequest>) {
  // The moment the endpoint stops waiting (`billingEndpoint` below) and answers 503.
  const debit = await debitWork(deps.context, r, deps.redisClock.now() + deps.storeTimeoutMs);
  if (debit.reply.outcome === "expired")
    throw new ServiceError(503, "the work debit reached the ledger store after billing stopped waiting");
  deps.metrics.debits.inc({ outcome: debit.reply.outcome });
  if ("figures" in debit && debit.figures)
    publishCrossings(deps, r.key_id, crossingsOf(r.key_id, r.credits, debit.figures));
  return debit.reply;
}

/** Settlements, counted by how each debit ended; one for a debit billing holds no record of is logged. */
async function settleAndCount(deps: EndpointDeps, debits: DebitId[]) {
  const result = await settle(deps.context, debits);
  for (const end of result.ends) deps.metrics.settlements.inc({ outcome: end });
  const expired = result.ends.filter((end) => end === "expired").length;
  if (expired > 0) deps.logger.warn({ expired }, "settlement asked for debits billing holds no record of");
  return result;
}

/** A refund, counted; one for a debit billing holds no record of gives nothing back and says so. */
async function refundAndCount(deps: EndpointDeps, message: RefundMessage) {
  const { outcome, balance } = await refund(deps.context, message);
  deps.metrics.refunds.inc({ outcome });
  if (outcome === "expired") {
    deps.logger.warn(
      { key_id: message.key_id, request_id: message.request_id },
      "refund of a debit billing holds no record of",
    );
  }
  return { outcome, balance };
}

/**
 * Turns a typed operation into a NATS request handler: the request is decoded with its contract
 * schema (distrust the wire), the result is sent as JSON. A request that does not decode — malformed,
 * or an amount out of its bounds — is refused (service error 400 saying why), logged and counted.
 * Expected outcomes are values in the reply. When the ledger store fails or is too slow the reply is
 * a service error 503 at once, so the gateway answers 503 instead of waiting out its own timeout;
 * anything else thrown is a bug: a service error 500, logged as an error and counted.
 */
export interface EndpointOptions {
  readonly logger: Logger;
  /** Bound on the store's answer; unset for slow operator commands such as `ledger verify`. */
  readonly timeoutMs?: number;
  /** Counts a request refused because it does not match its contract, by subject. */
  readonly onRefused?: (subject: string) => void;
  /** Counts a request that failed for a reason other than the store (a bug), by subject. */
  readonly onBug?: (subject: string) => void;
}

/** The store gave no answer within the endpoint's bound. */
class StoreTimeout extends Error {}

export function jsonEndpoint<S extends z.ZodType>(
  schema: S,
  run: (request: z.output<S>) => Promise<unknown>,
  options: EndpointOptions,
): RequestHandler {
  return async (payload, message) => {
    const request = decodeJson(payload, schema);
    if (!request.ok) {
      options.onRefused?.(message.subject);
      options.logger.warn({ subject: message.subject, problem: request.error }, "request refused");
      throw new ServiceError(400, `invalid request: ${request.error}`);
    }
    try {
      return JSON.stringify(await withTimeout(run(request.value), options.timeoutMs));
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      if (error instanceof StoreTimeout || isStoreFailure(error)) {
        options.logger.warn({ subject: message.subject, err: String(error) }, "ledger store failed");
        throw new ServiceError(503, `billing cannot reach its ledger store: ${String(error)}`);
      }
      options.onBug?.(message.subject);
      options.logger.error({ subject: message.subject, err: error }, "billing operation failed unexpectedly");
      throw new ServiceError(500, "billing failed unexpectedly");
    }
  };
}

/** One entry of BILLING_RPC served: its subject, its request decoded with the entry's schema. */
export function billingEndpoint<N extends BillingRpcName>(
  subjects: Subjects,
  name: N,
  run: (request: BillingRpcDecoded<N>) => Promise<z.input<(typeof BILLING_RPC)[N]["reply"]>>,
  options: EndpointOptions,
): { subject: string; handler: RequestHandler } {
  // TypeScript cannot narrow an entry of the table by a generic name; the table pairs them.
  const schema = BILLING_RPC[name].request as unknown as z.ZodType<BillingRpcDecoded<N>>;
  return { subject: subjects.billing[name], handler: jsonEndpoint(schema, run, options) };
}

async function withTimeout<T>(work: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  if (timeoutMs === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeout(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The lines a debit can cross that a key's account is told about (the portal sends the notices):
 * its low-balance threshold, and 80 % and 100 % of its monthly spend cap. Every debit (a request's
 * admission, a work debit) hands its figures to `crossingsOf`. (A refused debit's pause is told by
 * whoever paused: service-kit work-billing.ts.) Debits are serial in the ledger, so exactly one crosses each line on its way down
 * (or up, for spend); the event names that crossing, and the portal sends it once. The low-balance
 * line's crossing is named by its round (the key's count of top-ups): once per crossing, re-armed
 * by a top-up.
 * Published into the notice stream (JetStream, kept until a portal has sent it) after the answer is
 * decided, never in its way; only keys of a portal account have someone to tell.
 */
export interface NoticeEventDeps {
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  readonly context: LedgerContext;
  readonly logger: Logger;
}

export type Crossing = Omit<NoticeEvent, "account_id" | "key_id">;

/** The lines that the debit of `credits`, which left these figures, crossed. */
export function crossingsOf(keyId: string, credits: number, reply: DebitFigures): Crossing[] {
  if (credits === 0) return [];
  const crossings: Crossing[] = [];
  const line = reply.low_balance_threshold;
  if (line !== undefined && reply.balance < line && reply.balance + credits >= line)
    crossings.push({
      kind: "balance_low",
      crossing: `${keyId}:low:${line}:${reply.low_balance_round ?? 0}`,
      balance: reply.balance,
      threshold: line,
    });
  const spend = reply.month_spend;
  if (spend && spend.cap !== null) {
    const before = spend.spent - credits;
    for (const [kind, at] of [
      ["spend_cap_80", Math.ceil(spend.cap * 0.8)],
      ["spend_cap_100", spend.cap],
    ] as const) {
      if (before < at && spend.spent >= at)
        crossings.push({
          kind,
          crossing: `${keyId}:${spend.month}:${spend.cap}:${kind}`,
          balance: reply.balance,
          month_spend: spend,
        });
    }
  }
  return crossings;
}

/** Publishes the crossings of one debit; a failure is logged, the debit stands. */
export function publishCrossings(deps: NoticeEventDeps, keyId: string, crossings: Crossing[]): void {
  if (crossings.length === 0) return;
  void (async () => {
    const accountId = await deps.context.redis.hget(deps.context.keys.keyRecord(keyId), "account_id");
    if (!accountId) return;
    for (const crossing of crossings) {
      const event: NoticeEvent = { ...crossing, key_id: keyId, account_id: accountId };
      const published = await publishNoticeEvent(deps.nats, deps.subjects, event);
      if (!published.ok)
        deps.logger.warn({ key_id: keyId, err: published.error }, "notice event not published");
    }
  })().catch((error: unknown) =>
    deps.logger.warn({ key_id: keyId, err: String(error) }, "notice event not published"),
  );
}
