/**
 * What the portal tells an account about, by email and (where set) by a signed webhook. Receipts
 * and payment problems are about money already moved: they cannot be switched off. The others are
 * optional, and each of their emails carries a link to switch its kind off.
 */
export const NOTICE_KINDS = {
  payment_succeeded: { optional: false, label: "Receipts for card payments" },
  payment_failed: { optional: false, label: "A card payment failed" },
  payment_reversed: { optional: false, label: "A payment was refunded or disputed" },
  balance_low: { optional: true, label: "A key's balance fell below your threshold" },
  spend_cap_80: { optional: true, label: "A key spent 80 % of its monthly cap" },
  spend_cap_100: { optional: true, label: "A key reached its monthly cap" },
  spending_paused: { optional: true, label: "A monitor or export paused for lack of credits" },
  webhook_failing: { optional: false, label: "A monitor paused: its webhook kept failing" },
  test: { optional: false, label: "A test notice you asked for" },
} as const;

export type NoticeKind = keyof typeof NOTICE_KINDS;

/** The webhook event type of each kind (Standard Webhooks `type`). */
export const WEBHOOK_TYPES: Record<NoticeKind, string> = {
  payment_succeeded: "payment.succeeded",
  payment_failed: "payment.failed",
  payment_reversed: "payment.reversed",
  balance_low: "balance.low",
  spend_cap_80: "spend_cap.warning",
  spend_cap_100: "spend_cap.reached",
  spending_paused: "spending.paused",
  webhook_failing: "monitor.failing",
  test: "notice.test",
};

export const OPTIONAL_KINDS = (Object.keys(NOTICE_KINDS) as NoticeKind[]).filter(
  (kind) => NOTICE_KINDS[kind].optional,
);

/**
 * Kinds counted against an account's hourly limit (NOTICES_PER_ACCOUNT_PER_HOUR): the optional ones,
 * and the test notice, which a person sends on request and so could otherwise send without end.
 */
export const isHourlyLimited = (kind: NoticeKind): boolean => NOTICE_KINDS[kind].optional || kind === "test";

/** One notice: what happened (`data`, also the webhook's), and the email that says it. */
export interface Notice {
  readonly kind: NoticeKind;
  /**
   * Names the crossing (e.g. a payment id, a key and a month): the same crossing seen by several
   * replicas, or delivered twice, is sent once.
   */
  readonly crossing: string;
  readonly subject: string;
  /** Paragraphs of plain text; the HTML email shows the same paragraphs. */
  readonly paragraphs: readonly string[];
  /** An address to point at, shown as a link. */
  readonly link?: { readonly text: string; readonly url: string };
  readonly data: Record<string, unknown>;
}
