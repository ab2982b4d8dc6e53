/**
 * Expected outcomes are values (STYLE.md §5): a pipeline step returns `Step<T>`, and a failure names
 * its catalog code. Only `send-error.ts` turns a failure into an HTTP answer.
 */
import type { ErrorCode } from "@rda/contracts";

export interface Failure {
  readonly code: ErrorCode;
  /** Appended to the catalog message, so the developer sees what to fix (e.g. which parameter). */
  readonly detail?: string;
  /** Seconds for `Retry-After` on 429 and 503. */
  readonly retryAfterSeconds?: number;
  /** Why, for the log only (e.g. an adapter's upstream error); never shown to the caller. */
  readonly internal?: string;
}

export type Step<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly failure: Failure };

export const succeed = <T>(value: T): Step<T> => ({ ok: true, value });
export const fail = (code: ErrorCode, extra: Omit<Failure, "code"> = {}): Step<never> => ({
  ok: false,
  failure: { code, ...extra },
});
