/**
 * Sends every event to the configured webhook endpoint as Stripe does: a POST of the event as
 * pretty-printed JSON, signed (signature.ts), retried with doubling delays while the endpoint fails
 * (anything but a 2xx, or no answer within the timeout). Each attempt is recorded for the test
 * controls. Holding queues new events instead, so that a test can release them in any order.
 */
import { epochSeconds } from "../ids.ts";
import type { StripeEvent } from "../objects.ts";
import { signatureHeader } from "./signature.ts";

export interface DeliverySettings {
  /** Where events go; none: events are only kept (GET /__sim/events). */
  readonly url?: string;
  readonly secret: string;
  /** Attempts per delivery, the first included. */
  readonly attempts: number;
  /** Delay before the first retry; each later one doubles it. */
  readonly retryBaseMs: number;
  readonly timeoutMs: number;
}

export interface Attempt {
  readonly at: string;
  /** The endpoint's HTTP status, or 0 when it did not answer. */
  readonly status: number;
  readonly error?: string;
}

export interface DeliveryOptions {
  /** Sign with this epoch second instead of now (a stale signature, for tolerance tests). */
  readonly timestamp?: number;
  /** Only one attempt, no retries (re-deliveries asked for by tests). */
  readonly once?: boolean;
}

export class WebhookDeliverer {
  readonly attempts = new Map<string, Attempt[]>();
  private holding = false;
  private readonly held: StripeEvent[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly settings: DeliverySettings) {}

  /** A new event: delivered now (in the background), or held. */
  accept(event: StripeEvent): void {
    if (this.holding) this.held.push(event);
    else void this.deliver(event);
  }

  hold(): void {
    this.holding = true;
  }

  /** Stops holding and delivers what was held, one at a time, in the order asked for. */
  async release(order: "sent" | "reverse"): Promise<string[]> {
    this.holding = false;
    const events = this.held.splice(0);
    if (order === "reverse") events.reverse();
    for (const event of events) await this.deliver(event);
    return events.map((event) => event.id);
  }

  /** The event as it would be sent now: its exact payload and a signature over it. */
  signed(event: StripeEvent, timestamp = epochSeconds()): { payload: string; signature: string } {
    const payload = JSON.stringify(event, null, 2);
    return { payload, signature: signatureHeader(payload, this.settings.secret, timestamp) };
  }

  /** Delivers once now; on failure retries in the background (unless `once`). Resolves with the first attempt. */
  async deliver(
    event: StripeEvent,
    options: DeliveryOptions = {},
    attempt = 1,
  ): Promise<Attempt | undefined> {
    if (!this.settings.url || this.closed) return undefined;
    const result = await this.post(event, options.timestamp);
    this.attempts.set(event.id, [...(this.attempts.get(event.id) ?? []), result]);
    const failed = result.status < 200 || result.status > 299;
    if (failed && !options.once && attempt < this.settings.attempts) this.retryLater(event, attempt);
    return result;
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
  }

  private retryLater(event: StripeEvent, attempt: number): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        void this.deliver(event, {}, attempt + 1);
      },
      this.settings.retryBaseMs * 2 ** (attempt - 1),
    );
    this.timers.add(timer);
  }

  private async post(event: StripeEvent, timestamp?: number): Promise<Attempt> {
    const { payload, signature } = this.signed(event, timestamp);
    const at = new Date().toISOString();
    try {
      const response = await fetch(this.settings.url!, {
        method: "POST",
        headers: {
          "content-type": "application/json; charset=utf-8",
          "stripe-signature": signature,
          "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
        },
        body: payload,
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      await response.arrayBuffer();
      return { at, status: response.status };
    } catch (error) {
      return { at, status: 0, error: error instanceof Error ? error.message : String(error) };
    }
  }
}
