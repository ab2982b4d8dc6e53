/**
 * Billing's notice events (billing.events.notice) turned into notices: each portal replica listens
 * in one queue group, so one of them takes each event, and the notifier's once-per-crossing guard
 * covers an event heard twice. `spendingPausedNotice` is the hook monitors and exports call (through
 * the same event) when they stop for lack of credits.
 */
import { monthResetsAt, type NoticeEvent, noticeEventSchema, type Subjects } from "@rda/contracts";
import type { Logger, NatsConnection } from "@rda/service-kit";
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

/** A monitor or export stopped for lack of credits (published by those features). */
export function spendingPausedNotice(event: NoticeEvent, portalUrl: string): Notice {
  return {
    kind: "spending_paused",
    crossing: event.crossing,
    subject: `${event.what ?? "A monitor or export"} paused: key ${event.key_id} is out of credits`,
    paragraphs: [
      `${event.what ?? "A monitor or export"} using your key ${event.key_id} paused because the key has ${credits(event.balance)} left.`,
      "It resumes once you add credits.",
    ],
    link: { text: "Buy credits for this key", url: `${portalUrl}/billing?key=${event.key_id}` },
    data: { ...event },
  };
}

/** Listens for billing's notice events until `stop`. */
export function listenForNoticeEvents(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  notifier: Notifier;
  logger: Logger;
  portalUrl: string;
}): { stop(): void } {
  const subscription = deps.nats.subscribe(deps.subjects.billing.notice, {
    queue: "portal-notices",
    callback: (error, message) => {
      if (error) return deps.logger.warn({ err: String(error) }, "notice events interrupted");
      const parsed = noticeEventSchema.safeParse(safeJson(message.string()));
      if (!parsed.success) return deps.logger.warn("a notice event that does not parse was dropped");
      const event = parsed.data;
      deps.notifier
        .notify(event.account_id, noticeOf(event, deps.portalUrl))
        .catch((failure: unknown) =>
          deps.logger.warn(
            { account_id: event.account_id, kind: event.kind, err: String(failure) },
            "notice not sent",
          ),
        );
    },
  });
  return { stop: () => subscription.unsubscribe() };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
