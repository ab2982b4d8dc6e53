/**
 * The one shape of an expected outcome (STYLE: expected outcomes are values, not exceptions): a value,
 * or an error describing why there is none. Every module returns this instead of its own `{ok…}` shape.
 */
import type { z } from "zod";

export type Result<T, E = string> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: E };

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });

/**
 * Decoding JSON that crossed a boundary (a NATS message, a request body) with the schema of what it
 * must be, into a Result. One place, so every receiver distrusts the wire the same way and says why
 * in one line.
 */
const decoder = new TextDecoder();

export function decodeJson<S extends z.ZodType>(
  payload: Uint8Array | string,
  schema: S,
): Result<z.output<S>, string> {
  let json: unknown;
  try {
    json = JSON.parse(typeof payload === "string" ? payload : decoder.decode(payload));
  } catch {
    return err("not JSON");
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return ok(parsed.data);
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return err(`${where}${issue?.message ?? "does not match its schema"}`);
}
