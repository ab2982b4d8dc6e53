/**
 * Signed delivery of one webhook message (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, signed with the `standardwebhooks` package) to a customer's URL, through the
 * service kit's safeFetch and its one outbound guard: https only (plain http only to loopback, and
 * only with the local-development switch), no credentials in the URL, only public addresses after
 * DNS resolution on every attempt, no redirects followed, a deadline per attempt and a cap on what
 * is read back (a longer answer fails the attempt). A few attempts with a growing pause; the same
 * id on each, so the receiver can de-duplicate. A target may hold two secrets while one is rotated:
 * the message then carries both signatures, space-separated, as the specification allows, so a
 * receiver verifies with either.
 */
import { isIP } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import {
  BlockedAddressError,
  isLocalhostName,
  isLoopbackAddress,
  isPublicAddress,
  safeFetch,
} from "@rda/service-kit";
import { Webhook } from "standardwebhooks";

export interface WebhookMessage {
  /** Unique per message, the same on every attempt: receivers de-duplicate by it. */
  readonly id: string;
  /** What happened, e.g. `balance.low`. */
  readonly type: string;
  readonly data: Record<string, unknown>;
}

export interface DeliveryOptions {
  /**
   * The local-development switch: also deliver to http://127.0.0.1 (or ::1). Never in production;
   * the caller logs loudly that it is on.
   */
  readonly allowLoopback?: boolean;
  /** Each attempt's deadline for connecting, headers and body together; default 5 s. */
  readonly timeoutMs?: number;
  /** Most bytes of the answer read before the connection is dropped; default 64 KiB. */
  readonly maxResponseBytes?: number;
  /** Attempts in all; default 3. */
  readonly attempts?: number;
  /** Pause before the second attempt, doubled each time; default 1 s. */
  readonly retryDelayMs?: number;
  /** The clock of `webhook-timestamp`; tests may pin it. */
  readonly now?: () => Date;
}

export type DeliveryResult =
  | { readonly outcome: "delivered"; readonly status: number; readonly attempts: number }
  /** Refused before any request: the URL is not one we deliver to. Retrying cannot help. */
  | { readonly outcome: "refused"; readonly reason: string }
  | {
      readonly outcome: "failed";
      readonly reason: string;
      readonly attempts: number;
      /** The last answer's status, when the receiver answered at all. */
      readonly status?: number;
    };

/** Where a message goes: the URL and its secret, or its secrets (newest first) during a rotation. */
export interface WebhookTarget {
  readonly url: string;
  readonly secret: string | readonly string[];
}

/** Why a URL is not one we deliver to, or undefined when it is (addresses are checked at connect). */
export function urlProblem(url: string, allowLoopback = false): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not a URL";
  }
  if (parsed.username || parsed.password) return "a URL with credentials";
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  const loopbackHost = isLocalhostName(host) || (isIP(host) !== 0 && isLoopbackAddress(host));
  if (parsed.protocol === "http:" && !(allowLoopback && loopbackHost)) return "not https";
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "not https";
  // An address literal never reaches DNS, so it is checked here.
  if (isIP(host) !== 0 && !isPublicAddress(host) && !(allowLoopback && loopbackHost))
    return "a non-public address";
  if (isLocalhostName(host) && !allowLoopback) return "a non-public address";
  return undefined;
}

/** Signs `message` with the endpoint's `whsec_…` secret and POSTs it; see the module comment. */
export async function deliverWebhook(
  target: WebhookTarget,
  message: WebhookMessage,
  options: DeliveryOptions = {},
): Promise<DeliveryResult> {
  const allowLoopback = options.allowLoopback ?? false;
  const problem = urlProblem(target.url, allowLoopback);
  if (problem) return { outcome: "refused", reason: problem };
  const attempts = options.attempts ?? 3;
  let last: Extract<Attempt, { ok: false }> = { ok: false, reason: "", final: false };
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await sleep((options.retryDelayMs ?? 1_000) * 2 ** (attempt - 2));
    const result = await attemptDelivery(target, message, options, allowLoopback);
    if (result.ok) return { outcome: "delivered", status: result.status, attempts: attempt };
    last = result;
    if (result.final) return { outcome: "refused", reason: result.reason };
  }
  const status = last.status === undefined ? {} : { status: last.status };
  return { outcome: "failed", reason: last.reason, attempts, ...status };
}

type Attempt = { ok: true; status: number } | { ok: false; reason: string; final: boolean; status?: number };

async function attemptDelivery(
  target: WebhookTarget,
  message: WebhookMessage,
  options: DeliveryOptions,
  allowLoopback: boolean,
): Promise<Attempt> {
  const sentAt = options.now?.() ?? new Date();
  const body = JSON.stringify({ type: message.type, timestamp: sentAt.toISOString(), data: message.data });
  const secrets = typeof target.secret === "string" ? [target.secret] : target.secret;
  const signature = secrets.map((secret) => new Webhook(secret).sign(message.id, sentAt, body)).join(" ");
  try {
    // A fresh connection per attempt (safeFetch keeps none), so the address check runs every time.
    const answer = await safeFetch(target.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "reddit-data-api-webhooks/1",
        "webhook-id": message.id,
        "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
        "webhook-signature": signature,
      },
      body,
      timeoutMs: options.timeoutMs ?? 5_000,
      maxBytes: options.maxResponseBytes ?? 65_536,
      allowLoopback,
    });
    if (answer.status >= 200 && answer.status < 300) return { ok: true, status: answer.status };
    // A redirect is not followed: the endpoint must answer itself.
    return { ok: false, reason: `answered ${answer.status}`, final: false, status: answer.status };
  } catch (error) {
    const blocked = error instanceof BlockedAddressError;
    return { ok: false, reason: blocked ? "a non-public address" : (error as Error).message, final: blocked };
  }
}
