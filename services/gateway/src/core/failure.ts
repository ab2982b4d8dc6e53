/**
 * Expected outcomes are values: a step of a request returns `Step<T>`, the project's one
 * `Result` with a `Failure` naming its catalog code. Only `http/send-error.ts` turns a failure into an
 * HTTP answer.
 */
import { type ErrorCode, err, type Result } from "@rda/contracts";

export interface Failure {
  readonly code: ErrorCode;
  /** Appended to the catalog message, so the developer sees what to fix (e.g. which parameter). */
  readonly detail?: string;
  /**
   * The whole sentence, when the service that owns the thing (monitors, exports) wrote it for the
   * caller; the catalog's message and `detail` are then not used.
   */
  readonly message?: string;
  /** The one parameter at fault, when the code knows it (otherwise read from the sentence). */
  readonly param?: string;
  /** Seconds for `Retry-After` on 429 and 503. */
  readonly retryAfterSeconds?: number;
  /** Why, for the log only (e.g. an adapter's upstream error); never shown to the caller. */
  readonly internal?: string;
  /** Set once the credit this request was charged has been given back, so the answer may say so. */
  readonly refunded?: boolean;
}

export type Step<T> = Result<T, Failure>;

export { ok as succeed } from "@rda/contracts";

export const fail = (code: ErrorCode, extra: Omit<Failure, "code"> = {}): Step<never> =>
  err({ code, ...extra });
