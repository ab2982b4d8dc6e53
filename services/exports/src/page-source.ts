/**
 * One listing page from the posts adapter over NATS, asked exactly as the gateway asks it for
 * `GET /v1/posts` / `GET /v1/comments` (the same parameters, the same reply frame, reading past the
 * adapter's progress messages), marked with the caller's priority class: `exports` for a job's
 * pages, so the upstream budget puts interactive requests first; `interactive` for the probes of a
 * quote, which a caller waits for.
 */
import {
  type ExportKind,
  err,
  type ListingParams,
  ok,
  type Result,
  type Subjects,
  type UpstreamPriority,
} from "@rda/contracts";
import { adapterJson, callAdapter, describeAdapterFailure, type NatsConnection } from "@rda/service-kit";

export interface ListingPage {
  readonly rows: Record<string, unknown>[];
  /** created_utc of the page's last row before any `q` filter; null for an empty listing. */
  readonly cursor: number | null;
  readonly hasMore: boolean;
}

/** Why a page could not be had, and whether asking again may help. */
export interface PageFailure {
  readonly reason: string;
  readonly retryable: boolean;
  /**
   * Set when a budget refused the page, nothing sent: `ours`, our shared upstream budget had no turn
   * in time (the adapter's `budget_spent`); `upstream`, the upstream's own limit (`rate_limited`).
   */
  readonly refusedBy?: "ours" | "upstream";
  /** With `refusedBy`: when to ask again, in seconds. */
  readonly retryAfterSeconds?: number;
}

export type PageResult = Result<ListingPage, PageFailure>;

export type PageSource = (
  kind: ExportKind,
  params: ListingParams,
  requestId: string,
  priority: UpstreamPriority,
  /** Whose fair share of the class the page draws on (`budgetAccountOf`). */
  account?: string,
) => Promise<PageResult>;

export function adapterPageSource(nats: NatsConnection, subjects: Subjects, timeoutMs: number): PageSource {
  return async (kind, params, requestId, priority, account) => {
    const operation = kind === "posts" ? "listPosts" : "listComments";
    const answer = await callAdapter(nats, subjects, {
      operation,
      requestId,
      params,
      priority,
      account,
      timeoutMs,
    });
    if (answer.outcome !== "ok") {
      const reason = describeAdapterFailure(answer);
      if (answer.outcome === "budget_spent" || answer.outcome === "rate_limited") {
        const refusedBy = answer.outcome === "budget_spent" ? "ours" : "upstream";
        return err({ reason, retryable: true, refusedBy, retryAfterSeconds: answer.retryAfterSeconds });
      }
      return err({ reason, retryable: answer.outcome !== "bad_request" });
    }
    const rows = adapterJson(answer);
    if (!Array.isArray(rows)) return err({ reason: "the adapter's data is not a list", retryable: true });
    return ok({ rows: rows as Record<string, unknown>[], cursor: answer.cursor, hasMore: answer.hasMore });
  };
}
