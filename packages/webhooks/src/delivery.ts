/**
 * Signed delivery of one webhook message (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, signed with the `standardwebhooks` package) to a customer's URL, guarded:
 * https only (plain http only to loopback, and only with the local-development switch), no
 * credentials in the URL, only public addresses after DNS resolution on every attempt
 * (outbound-address.ts), no redirects followed, a deadline per attempt and a cap on what is read
 * back. A few attempts with a growing pause; the same id on each, so the receiver can de-duplicate.
 * A target may hold two secrets while one is rotated: the message then carries both signatures,
 * space-separated, as the specification allows, so a receiver verifies with either.
 */
import { isIP } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Webhook } from "standardwebhooks";
import { Agent, request } from "undici";
import { BlockedAddressError, guardedLookup, isPublicAddress } from "./outbound-address.ts";

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
  const loopbackHost = host === "127.0.0.1" || host === "::1" || host === "localhost";
  if (parsed.protocol === "http:" && !(allowLoopback && loopbackHost)) return "not https";
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "not https";
  // An address literal never reaches DNS, so it is checked here.
  if (isIP(host) !== 0 && !isPublicAddress(host) && !(allowLoopback && loopbackHost))
    return "a non-public address";
  if (host === "localhost" && !allowLoopback) return "a non-public address";
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
  const timeoutMs = options.timeoutMs ?? 5_000;
  const sentAt = options.now?.() ?? new Date();
  const body = JSON.stringify({ type: message.type, timestamp: sentAt.toISOString(), data: message.data });
  const secrets = typeof target.secret === "string" ? [target.secret] : target.secret;
  const signature = secrets.map((secret) => new Webhook(secret).sign(message.id, sentAt, body)).join(" ");
  // A fresh connection per attempt, so the address check runs again every time.
  const agent = new Agent({
    connect: { lookup: guardedLookup(allowLoopback), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    pipelining: 0,
  });
  try {
    const answer = await request(target.url, {
      method: "POST",
      dispatcher: agent,
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        "content-type": "application/json",
        "user-agent": "reddit-data-api-webhooks/1",
        "webhook-id": message.id,
        "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
        "webhook-signature": signature,
      },
      body,
    });
    await drainAtMost(answer.body, options.maxResponseBytes ?? 65_536);
    if (answer.statusCode >= 200 && answer.statusCode < 300) return { ok: true, status: answer.statusCode };
    // A redirect is not followed: the endpoint must answer itself.
    return { ok: false, reason: `answered ${answer.statusCode}`, final: false, status: answer.statusCode };
  } catch (error) {
    const blocked =
      error instanceof BlockedAddressError ||
      (error as { cause?: unknown }).cause instanceof BlockedAddressError;
    return {
      ok: false,
      reason: blocked ? "a non-public address" : String((error as Error).message),
      final: blocked,
    };
  } finally {
    await agent.destroy().catch(() => undefined);
  }
}

async function drainAtMost(body: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number) {
  let read = 0;
  for await (const chunk of body) {
    read += chunk.length;
    if (read > maxBytes) {
      body.destroy();
      return;
    }
  }
}
