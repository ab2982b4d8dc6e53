/**
 * The outbox's loop (service-kit's), the one that sends our webhooks: every turn it walks the
 * outbox's owners and, for each whose lease this replica wins, moves the head of its queue one step
 * along. A delivery's life:
 *
 *   (cut, when the queue is empty and hooks.nextDelivery has a batch) or (enqueue) ─► pending
 *   pending ─hooks.beforeAttempt (e.g. the round's debit), POST, 2xx─► accepted
 *   accepted ─hooks.accepted (e.g. the settle)─► delivered (out of the queue)
 *   pending ─POST fails, within the retry window─► pending (next_attempt_at later)
 *   pending ─window over─► failed: out of the queue, the next is sent; or, with hooks.roundFailed,
 *                          first in line, the queue stopped behind it until it is sent again
 *   delivered / failed ─redeliver─► pending (next round, first in line)
 *
 * The retry window runs from the round's first attempt, not from when it was queued: a delivery
 * that waited behind a failing one (or for credits) still gets its whole window. Every step can be
 * repeated by whichever replica holds the lease next: a replica killed mid-step leaves the record
 * where it was, and the next repeats the step with the same `webhook-id` (an accepted one is never
 * POSTed again). The hooks are how a user of the outbox adds what its deliveries cost (monitors:
 * a debit per round, settled on acceptance, refunded when it fails for good); accounts' notices
 * need none.
 */
import { type Logger, type Loop, startLoop } from "@rda/service-kit";
import type { BatchSource, OutboxDelivery, OutboxEndpoint, WebhookOutbox } from "./outbox.ts";
import {
  type AttemptOptions,
  attemptOnce,
  type DeliveryAttempt,
  nextAttemptAt,
  type RetrySchedule,
  withAttemptKept,
} from "./schedule.ts";

/** What a hook may write: the owner's records, under this replica's lease (false: it is gone). */
export interface StepWriter<R extends OutboxDelivery> {
  save(record: R, dequeue?: boolean): Promise<boolean>;
  /** WebhookOutbox.cut under this replica's lease. */
  cut(record: R, source: BatchSource): Promise<boolean>;
}

/** What a user of the outbox adds to a delivery's life; each is called with the owner's endpoint. */
export interface DeliveryHooks<R extends OutboxDelivery, E extends OutboxEndpoint> {
  /**
   * The owner's queue is empty: cut its next delivery from its source (`writer.cut`) and return its
   * id, or null when there is none yet. An outbox with this hook walks its owners while their queues
   * are empty (they stop being walked only when their endpoint goes); one without forgets an owner
   * once its queue is empty, until a delivery is queued.
   */
  readonly nextDelivery?: (owner: string, endpoint: E, writer: StepWriter<R>) => Promise<string | null>;
  /**
   * Before each attempt: the record to send (a round debited first), or undefined when it is not
   * sent now, the hook having saved why (a later attempt, a pause, a round ended).
   */
  readonly beforeAttempt?: (record: R, endpoint: E, writer: StepWriter<R>) => Promise<R | undefined>;
  /** Each attempt, as the log keeps it (for a metric). */
  readonly attempted?: (attempt: DeliveryAttempt) => void;
  /**
   * The receiver accepted the delivery (saved `accepted`, never POSTed again): true once what must
   * follow is done (the round's debit settled) and it is delivered; false: asked again next turn.
   */
  readonly accepted?: (record: R, endpoint: E) => Promise<boolean>;
  /**
   * With this hook a delivery that failed for good stays first in line and its owner's queue waits
   * behind it (items stay in order) until it is sent again. It runs once the failed record is
   * saved, and again on any later turn that finds it first (a replica died before it was done), so
   * it must be repeatable.
   */
  readonly roundFailed?: (record: R, endpoint: E, writer: StepWriter<R>) => Promise<void>;
}

interface OutboxLoopBase<R extends OutboxDelivery> {
  readonly outbox: WebhookOutbox<R>;
  readonly schedule: RetrySchedule;
  readonly attempt: AttemptOptions;
  readonly logger: Logger;
  /** This replica's name in leases. */
  readonly holder: string;
  readonly leaseMs: number;
  readonly tickMs: number;
  /** What the loop is, for its log lines. */
  readonly name: string;
}

/**
 * How a loop finds an owner's endpoint. Without hooks, undefined means it has none: its queued
 * deliveries fail ("no webhook URL is set") and leave the queue. With hooks (money rides on them),
 * there is no such case: "hold" leaves the owner's queue as it is this turn (a stopped monitor).
 */
export type OutboxLoopDeps<
  R extends OutboxDelivery = OutboxDelivery,
  E extends OutboxEndpoint = OutboxEndpoint,
> = OutboxLoopBase<R> &
  (
    | {
        readonly endpoint: (owner: string) => Promise<E | undefined>;
        readonly hooks?: undefined;
      }
    | {
        readonly endpoint: (owner: string) => Promise<E | "hold">;
        readonly hooks: DeliveryHooks<R, E>;
      }
  );

export function startOutboxLoop<R extends OutboxDelivery, E extends OutboxEndpoint>(
  deps: OutboxLoopDeps<R, E>,
): Loop {
  return startLoop({
    name: deps.name,
    everyMs: deps.tickMs,
    turn: (isStopped) => sendDue(deps, isStopped),
    logger: deps.logger,
  });
}

/** One turn: each owner whose lease this replica wins moves its head delivery one step. */
export async function sendDue<R extends OutboxDelivery, E extends OutboxEndpoint>(
  deps: OutboxLoopDeps<R, E>,
  isStopped: () => boolean,
): Promise<void> {
  for (const owner of await deps.outbox.owners()) {
    if (isStopped()) return;
    const lease = await deps.outbox.claim(owner, deps.holder, deps.leaseMs);
    if (lease === undefined) continue;
    try {
      await step(deps, owner);
    } catch (error) {
      deps.logger.warn({ err: error, owner }, `${deps.name} step failed; retried`);
    } finally {
      await lease.release();
    }
  }
}

const NO_HOOKS = {};

/** One step of one owner's queue, under its lease. */
interface Step<R extends OutboxDelivery, E extends OutboxEndpoint> {
  readonly deps: OutboxLoopBase<R>;
  readonly hooks: DeliveryHooks<R, E>;
  readonly endpoint: E;
  readonly writer: StepWriter<R>;
}

async function step<R extends OutboxDelivery, E extends OutboxEndpoint>(
  deps: OutboxLoopDeps<R, E>,
  owner: string,
): Promise<void> {
  const { outbox, holder } = deps;
  const endpoint = await deps.endpoint(owner);
  if (endpoint === "hold") return;
  const hooks: DeliveryHooks<R, E> = deps.hooks ?? NO_HOOKS;
  const writer: StepWriter<R> = {
    save: (record, dequeue = false) => outbox.save(holder, record, dequeue),
    cut: (record, source) => outbox.cut(holder, record, source),
  };
  let headId = await outbox.head(owner);
  if (headId === null) {
    if (hooks.nextDelivery === undefined) return outbox.forgetIfIdle(owner);
    if (endpoint !== undefined) headId = await hooks.nextDelivery(owner, endpoint, writer);
    if (headId === null) return;
  }
  const record = await outbox.delivery(owner, headId);
  // Expired out of the log while still queued: out of line.
  if (record === undefined) return outbox.dropMissing(owner, headId);
  if (endpoint === undefined) return failWithoutEndpoint(deps, record);
  const turn: Step<R, E> = { deps, hooks, endpoint, writer };
  switch (record.state) {
    case "pending":
      if (record.next_attempt_at > Date.now()) return;
      return attempt(turn, record);
    case "accepted":
      return finishAccepted(turn, record);
    case "failed":
      if (hooks.roundFailed !== undefined) return hooks.roundFailed(record, endpoint, writer);
      // Failed by a replica that died before dequeuing it: out of line.
      await writer.save(record, true);
      return;
    case "delivered":
      // Delivered by a replica that died before dequeuing it: out of line.
      await writer.save(record, true);
      return;
  }
}

/** The owner has no endpoint (its webhook URL was removed): what it had queued fails. */
async function failWithoutEndpoint<R extends OutboxDelivery>(
  deps: OutboxLoopBase<R>,
  record: R,
): Promise<void> {
  if (record.state !== "pending") {
    await deps.outbox.save(deps.holder, record, true);
    return;
  }
  const failed = withAttemptKept(record, {
    at: Date.now(),
    round: record.round,
    status: null,
    latency_ms: 0,
    error: "no webhook URL is set",
  });
  await deps.outbox.save(deps.holder, { ...failed, state: "failed" }, true);
}

async function attempt<R extends OutboxDelivery, E extends OutboxEndpoint>(
  turn: Step<R, E>,
  record: R,
): Promise<void> {
  const { deps, hooks, endpoint, writer } = turn;
  const ready =
    hooks.beforeAttempt === undefined ? record : await hooks.beforeAttempt(record, endpoint, writer);
  if (ready === undefined) return;
  const message = { id: ready.id, type: ready.type, data: ready.data };
  const tried = await attemptOnce(endpoint, message, ready.round, deps.attempt);
  hooks.attempted?.(tried);
  const first = !ready.attempts.some((each) => each.round === ready.round);
  const started = first ? { ...ready, round_started_at: tried.at } : ready;
  const after = withAttemptKept(started, tried);
  if (tried.error === null) {
    const accepted: R = { ...after, state: "accepted" };
    if (await writer.save(accepted)) await finishAccepted(turn, accepted);
    return;
  }
  const failedInRound = after.attempts.filter((each) => each.round === after.round).length;
  const at = nextAttemptAt(after.round_started_at, failedInRound, deps.schedule, Date.now());
  if (at !== undefined) {
    await writer.save({ ...after, next_attempt_at: at });
    return;
  }
  const failed: R = { ...after, state: "failed" };
  deps.logger.warn(
    { owner: record.owner, delivery_id: record.id },
    `${deps.name}: a delivery failed for good`,
  );
  if (hooks.roundFailed === undefined) await writer.save(failed, true);
  else if (await writer.save(failed)) await hooks.roundFailed(failed, endpoint, writer);
}

/** Whatever follows the receiver's 2xx, then the delivery is done and out of line. */
async function finishAccepted<R extends OutboxDelivery, E extends OutboxEndpoint>(
  turn: Step<R, E>,
  record: R,
): Promise<void> {
  const { hooks, endpoint, writer } = turn;
  if (hooks.accepted !== undefined && !(await hooks.accepted(record, endpoint))) return;
  await writer.save({ ...record, state: "delivered" }, true);
}
