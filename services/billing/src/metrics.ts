/**
 * Billing's metrics: what the ledger actually did (admissions of data requests, debits settled,
 * refunds applied — asked for, from the stream, or by voiding — top-ups and card payments and their
 * cents, credits taken back after refunds and disputes, keys created,
 * rotated or revoked) and how far the refund consumer lags behind the stream. The
 * gateway's counters say what it asked for; these say what billing applied.
 */
import type { Subjects } from "@rda/contracts";
import { Counter, Gauge, type JetStreamManager, type Registry } from "@rda/service-kit";

export interface BillingMetrics {
  /** Admissions of data requests: admitted, insufficient, rate_limited, spend_cap_reached, unknown_key, revoked. */
  readonly debits: Counter<"outcome">;
  /** Pending debits sent for settlement, by how each ended (DEBIT_ENDS, @rda/contracts). */
  readonly settlements: Counter<"outcome">;
  /** Refunds handled, by how each debit ended (DEBIT_ENDS), or malformed, retried. */
  readonly refunds: Counter<"outcome">;
  /** Top-up answers: ok, below_minimum, balance_limit, not_found, revoked. */
  readonly topUps: Counter<"outcome">;
  readonly topUpCents: Counter;
  /** Card payment events applied: applied, already_applied, reversed, unchanged, recorded, not_found. */
  readonly payments: Counter<"outcome">;
  readonly paymentCents: Counter;
  /** Credits taken back after refunds and disputes. */
  readonly paymentCreditsRemoved: Counter;
  /** Key changes: created, rotated, revoked. */
  readonly keyChanges: Counter<"change">;
  /** Requests refused before the ledger: they do not match their contract (malformed, out of bounds). */
  readonly refusedRequests: Counter<"subject">;
  /** Requests that failed for a reason other than the ledger store: bugs, answered 500. */
  readonly internalErrors: Counter<"subject">;
}

export function createBillingMetrics(registry: Registry): BillingMetrics {
  const registers = [registry];
  return {
    debits: new Counter({
      name: "billing_debits_total",
      help: "Admissions of data requests, by outcome (admitted: debited and pending; insufficient; rate_limited; spend_cap_reached; unknown_key; revoked).",
      labelNames: ["outcome"],
      registers,
    }),
    settlements: new Counter({
      name: "billing_settlements_total",
      help: "Pending debits sent for settlement, by how each ended (settled: now final; already_settled, already_refunded, voided: ended before; expired: no record held, refused).",
      labelNames: ["outcome"],
      registers,
    }),
    refunds: new Counter({
      name: "billing_refunds_total",
      help: "Refunds handled, by outcome (refunded: asked for or from the stream; voided: nobody settled the debit by its deadline; already_settled, already_refunded: ended before; expired: no record held, nothing given back; malformed; retried: the store failed).",
      labelNames: ["outcome"],
      registers,
    }),
    topUps: new Counter({
      name: "billing_topups_total",
      help: "Top-up requests answered, by outcome (ok; below_minimum; balance_limit: the balance would pass the most a key may hold, nothing added; not_found; revoked).",
      labelNames: ["outcome"],
      registers,
    }),
    topUpCents: new Counter({
      name: "billing_topup_cents_total",
      help: "US cents of the top-ups applied.",
      registers,
    }),
    payments: new Counter({
      name: "billing_payments_total",
      help: "Card payment events applied, by outcome (applied; already_applied: a later copy; reversed, unchanged, recorded: refunds and disputes; not_found; unverified: refused, the request did not match an event Stripe signed).",
      labelNames: ["outcome"],
      registers,
    }),
    paymentCents: new Counter({
      name: "billing_payment_cents_total",
      help: "US cents of the card payments credited.",
      registers,
    }),
    paymentCreditsRemoved: new Counter({
      name: "billing_payment_credits_removed_total",
      help: "Credits taken back from balances after refunds and disputes of card payments.",
      registers,
    }),
    keyChanges: new Counter({
      name: "billing_keys_total",
      help: "API keys created, rotated or revoked, by change.",
      labelNames: ["change"],
      registers,
    }),
    internalErrors: new Counter({
      name: "billing_internal_errors_total",
      help: "Requests that failed for a reason other than the ledger store (a bug), answered as a service error 500, by subject.",
      labelNames: ["subject"],
      registers,
    }),
    refusedRequests: new Counter({
      name: "billing_requests_refused_total",
      help: "Requests refused before reaching the ledger because they do not match their contract (malformed, or an amount out of bounds), by subject.",
      labelNames: ["subject"],
      registers,
    }),
  };
}

/**
 * The refund consumer's lag, read from JetStream at each scrape: messages not yet delivered to any
 * billing replica, and delivered but not yet acknowledged. When JetStream cannot answer, the series
 * are left out of that scrape rather than shown stale.
 */
export function registerRefundLag(registry: Registry, jsm: JetStreamManager, subjects: Subjects): void {
  new Gauge({
    name: "billing_refunds_pending",
    help: "Refund messages waiting in the stream: undelivered (not yet given to a billing replica) or unacknowledged (being applied or to be redelivered).",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      try {
        const info = await jsm.consumers.info(subjects.refundStream, subjects.refundConsumer);
        this.set({ state: "undelivered" }, info.num_pending);
        this.set({ state: "unacknowledged" }, info.num_ack_pending);
      } catch {
        this.reset();
      }
    },
  });
}
