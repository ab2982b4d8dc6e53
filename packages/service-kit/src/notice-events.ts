/**
 * The notice events' JetStream stream: billing (crossings) and whoever paused work for credits
 * (`tellSpendingPaused`) publish into it; the portal's notices workers share one durable consumer
 * and ack each event only once its notice was sent or deliberately dropped. A work queue: an acked
 * event is gone; one nobody has taken yet waits, so a notice published while no worker runs is
 * sent when one starts.
 */
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { err, type MonthSpend, type NoticeEvent, ok, type Result, type Subjects } from "@rda/contracts";
import { AckPolicy, DeliverPolicy, type JetStreamManager, RetentionPolicy } from "./jetstream.ts";
import { ensureConsumer, ensureStream, nanos } from "./jetstream-setup.ts";

export const NOTICE_STREAM = {
  /** A notice nobody could send in a week is no longer news. */
  maxAgeMs: 7 * 86_400_000,
  /** A re-published event (same kind and crossing) inside this window is dropped by JetStream. */
  duplicateWindowMs: 10 * 60_000,
  /** Redelivery of an event whose portal died while sending it. */
  ackWaitMs: 60_000,
} as const;

/**
 * The stream and the notices workers' shared durable consumer (never gives up: the stream's age
 * bounds it). Billing (a publisher) sets up the stream and the notices worker (the consumer) both,
 * at start and with the same settings, so either may start first.
 */
export async function ensureNoticeStream(
  jsm: JetStreamManager,
  subjects: Subjects,
  replicas: number,
): Promise<void> {
  await ensureStream(
    jsm,
    {
      name: subjects.noticeStream,
      subjects: [subjects.billing.notice],
      retention: RetentionPolicy.Workqueue,
      max_age: nanos(NOTICE_STREAM.maxAgeMs),
      duplicate_window: nanos(NOTICE_STREAM.duplicateWindowMs),
    },
    replicas,
  );
}

export async function ensureNoticeConsumer(jsm: JetStreamManager, subjects: Subjects): Promise<void> {
  await ensureConsumer(jsm, subjects.noticeStream, {
    durable_name: subjects.noticeConsumer,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: subjects.billing.notice,
    ack_wait: nanos(NOTICE_STREAM.ackWaitMs),
    max_deliver: -1,
  });
}

/**
 * Publishes one notice event and waits for the stream to hold it. The message id is the kind and
 * the crossing, so a retried publish is stored once; the portal's once-per-crossing record catches
 * anything later. A failure is returned, never thrown: the caller logs it.
 */
export async function publishNoticeEvent(
  nats: NatsConnection,
  subjects: Subjects,
  event: NoticeEvent,
  timeoutMs = 5_000,
): Promise<Result<void>> {
  try {
    await jetstream(nats).publish(subjects.billing.notice, JSON.stringify(event), {
      msgID: `${event.kind}:${event.account_id}:${event.crossing}`,
      expect: { streamName: subjects.noticeStream },
      timeout: timeoutMs,
    });
    return ok(undefined);
  } catch (error) {
    return err(`notice event ${event.kind} not published: ${String(error)}`);
  }
}

/**
 * Why billing refused a debit for lack of credits, as its reply says (a work debit's refusal, or a
 * request's admission): whom to tell, and whether the month's cap or the balance stopped it.
 */
export interface SpendingRefusal {
  readonly outcome: "insufficient" | "spend_cap_reached";
  /** The key's portal account; null for an operator's key (nobody to tell). */
  readonly account_id: string | null;
  readonly balance: number;
  readonly month_spend?: MonthSpend | undefined;
}

/** What paused (for people, `Your export exp_…`) and the pause's name (told once however often). */
export interface Pause {
  readonly what: string;
  readonly crossing: string;
}

/**
 * The one way work paused for credits is told: whoever paused (the exports worker, the monitors'
 * delivery loop, the gateway's pulls) publishes `spending_paused` with billing's refusal; billing
 * only decides. Nothing to tell for an operator's key. A failure is returned, never thrown.
 */
export async function tellSpendingPaused(
  nats: NatsConnection,
  subjects: Subjects,
  keyId: string,
  refusal: SpendingRefusal,
  pause: Pause,
): Promise<Result<void>> {
  if (refusal.account_id === null) return ok(undefined);
  const atCap = refusal.outcome === "spend_cap_reached" && refusal.month_spend !== undefined;
  return publishNoticeEvent(nats, subjects, {
    kind: "spending_paused",
    key_id: keyId,
    account_id: refusal.account_id,
    crossing: pause.crossing,
    balance: Math.max(0, refusal.balance),
    what: pause.what,
    // The month's spend says the pause is the cap's (the portal's notice names it).
    ...(atCap && { month_spend: refusal.month_spend }),
  });
}
