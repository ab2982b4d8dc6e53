/**
 * Notice events (billing's crossings, exports' and monitors' pauses; the notice stream in
 * @rda/service-kit) turned into notices: the portal replicas share one durable JetStream consumer,
 * so one of them takes each event, and the notifier's once-per-crossing record covers an event
 * delivered twice.
 */
import { monthResetsAt, type NoticeEvent, noticeEventSchema, type Subjects } from "@rda/contracts";
import {
  ACK,
  ensureNoticeConsumer,
  ensureNoticeStream,
  jetstreamManager,
  type Logger,
  type Loop,
  type MessageEnd,
  type NatsConnection,
  retryIn,
  startConsumerLoop,
} from "@rda/service-kit";
import type { Notice } from "./notice-kinds.ts";
import type { Notifier } from "./notifier.ts";

const credits = (n: number) => `${n.toLocaleString("en-US")} credits`;

export function noticeOf(event: NoticeEvent, portalUrl: string): Notice {
  const keyUrl = `${portalUrl}/keys/${event.key_id}`;
  const base = { crossing: event.crossing, data: { ...event } };
  switch (event.kind) {
    case "balance_low":
      return {
        ...base,
        kind: "balance_low",
        subject: `Key ${event.key_id} is below ${credits(event.threshold ?? 0)}`,
        paragraphs: [
          `The balance of your key ${event.key_id} fell below ${credits(event.threshold ?? 0)}: ${credits(event.balance)} are left.`,
          "When it reaches 0, requests with it are refused (402) until you add credits.",
        ],
        link: { text: "Buy credits for this key", url: `${portalUrl}/billing?key=${event.key_id}` },
      };
    case "spend_cap_80":
    case "spend_cap_100": {
      const spend = event.month_spend;
      const cap = spend?.cap ?? 0;
      const reset = spend ? monthResetsAt(spend.month).slice(0, 10) : "the first of next month";
      const reached = event.kind === "spend_cap_100";
      return {
        ...base,
        kind: event.kind,
        subject: reached
          ? `Key ${event.key_id} reached its monthly spend cap`
          : `Key ${event.key_id} spent 80 % of its monthly spend cap`,
        paragraphs: [
          `Your key ${event.key_id} has spent ${credits(spend?.spent ?? 0)} of its ${credits(cap)} monthly cap this month.`,
          reached
            ? `Its requests are refused (402, nothing charged) until the cap resets on ${reset} (UTC), unless you raise it.`
            : `At the cap, its requests will be refused until it resets on ${reset} (UTC).`,
        ],
        link: { text: "Change the cap", url: keyUrl },
      };
    }
    case "spending_paused":
      return spendingPausedNotice(event, portalUrl);
    case "webhook_failing":
      return webhookFailingNotice(event, portalUrl);
  }
}

/** A monitor's webhook batch failed for good (published by monitors): the monitor paused. */
export function webhookFailingNotice(event: NoticeEvent, portalUrl: string): Notice {
  const what = event.what ?? "A monitor";
  return {
    kind: "webhook_failing",
    crossing: event.crossing,
    subject: `${what} paused: its webhook kept failing`,
    paragraphs: [
      `${what} of your key ${event.key_id} could not deliver a batch to its webhook URL for the whole retry window, so it paused. The batch was not charged.`,
      "Its items are kept: fix the receiver, then redeliver the failed batch or set the monitor's paused to false, and delivery goes on in order.",
    ],
    link: { text: "See the key", url: `${portalUrl}/keys/${event.key_id}` },
    data: { ...event },
  };
}

/**
 * A monitor or export stopped for lack of credits, or at the key's monthly cap when the event
 * carries the month's spend (published by billing and monitors).
 */
export function spendingPausedNotice(event: NoticeEvent, portalUrl: string): Notice {
  const what = event.what ?? "A monitor or export";
  const spend = event.month_spend;
  if (spend?.cap != null)
    return {
      kind: "spending_paused",
      crossing: event.crossing,
      subject: `${what} paused: key ${event.key_id} reached its monthly spend cap`,
      paragraphs: [
        `${what} using your key ${event.key_id} paused because the key has spent its ${credits(spend.cap)} monthly cap.`,
        `It resumes when the cap resets on ${monthResetsAt(spend.month).slice(0, 10)} (UTC), or once you raise it.`,
      ],
      link: { text: "Change the cap", url: `${portalUrl}/keys/${event.key_id}` },
      data: { ...event },
    };
  return {
    kind: "spending_paused",
    crossing: event.crossing,
    subject: `${what} paused: key ${event.key_id} is out of credits`,
    paragraphs: [
      `${what} using your key ${event.key_id} paused because the key has ${credits(event.balance)} left.`,
      "It resumes once you add credits.",
    ],
    link: { text: "Buy credits for this key", url: `${portalUrl}/billing?key=${event.key_id}` },
    data: { ...event },
  };
}

/** After a notice that could not be sent yet (mail down, another replica at it): try again then. */
const RETRY_DELAY_MS = 2_000;

/**
 * Takes notice events from the notices workers' shared durable consumer (service-kit's consumer
 * loop) until `stop`. An event is acked once its notice was sent or deliberately not sent (switched
 * off, over the hourly limit, already sent, no such account); one that could not be sent yet is
 * handed back for a retry, and one that does not parse is terminated. A notice published while no
 * worker ran waits in the stream and is sent when one starts.
 */
export async function consumeNoticeEvents(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  notifier: Notifier;
  logger: Logger;
  portalUrl: string;
  /** Copies of the notice stream (NATS_REPLICAS). */
  replicas: number;
}): Promise<Loop> {
  const jsm = await jetstreamManager(deps.nats);
  await ensureNoticeStream(jsm, deps.subjects, deps.replicas);
  await ensureNoticeConsumer(jsm, deps.subjects);
  return startConsumerLoop({
    name: "notice event",
    nats: deps.nats,
    stream: deps.subjects.noticeStream,
    consumer: deps.subjects.noticeConsumer,
    schema: noticeEventSchema,
    handle: (event) => sendNotice(event, deps),
    retryMs: RETRY_DELAY_MS,
    logger: deps.logger,
  });
}

async function sendNotice(
  event: NoticeEvent,
  deps: { notifier: Notifier; logger: Logger; portalUrl: string },
): Promise<MessageEnd> {
  try {
    const result = await deps.notifier.notify(event.account_id, noticeOf(event, deps.portalUrl));
    return result.outcome === "not_yet" ? retryIn(RETRY_DELAY_MS) : ACK;
  } catch (failure) {
    deps.logger.warn(
      { account_id: event.account_id, kind: event.kind, err: String(failure) },
      "notice not sent yet; will retry",
    );
    return retryIn(RETRY_DELAY_MS);
  }
}
