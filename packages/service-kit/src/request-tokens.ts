/**
 * Request tokens noted in the record a command changed (contracts' `requestTokenSchema`): a
 * command sent under `Idempotency-Key` carries one, and the service that does it writes the token
 * into the record in the same write as the change itself (an export job's start, a batch's new
 * round), so the change and its mark are one step. The same command arriving again finds its token
 * there and answers the record as it is instead of changing it again. A record keeps the newest few
 * marks of the replay window (REQUEST_TOKEN_SECONDS); a thing a command makes anew is found by its
 * token through a key of its own instead (the services' `requested` keys).
 */
import { REQUEST_TOKEN_SECONDS } from "@rda/contracts";

export interface RequestTokenMark {
  readonly token: string;
  /** When the command was done, epoch ms. */
  readonly at: number;
}

/** Marks a record keeps: a job or a batch is changed a handful of times a day at most. */
const MARKS_KEPT = 16;

const live = (marks: readonly RequestTokenMark[] | undefined, now: number) =>
  (marks ?? []).filter((mark) => now - mark.at < REQUEST_TOKEN_SECONDS * 1000);

/** Whether the command with `token` was done to this record within the replay window. */
export function markedBy(
  marks: readonly RequestTokenMark[] | undefined,
  token: string | undefined,
  now: number,
): boolean {
  return token !== undefined && live(marks, now).some((mark) => mark.token === token);
}

/** The marks with `token` added (none to add: as they are, less the expired), the newest kept. */
export function withMark(
  marks: readonly RequestTokenMark[] | undefined,
  token: string | undefined,
  now: number,
): RequestTokenMark[] {
  const kept = live(marks, now);
  if (token === undefined) return kept;
  return [...kept, { token, at: now }].slice(-MARKS_KEPT);
}
