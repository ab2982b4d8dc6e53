/**
 * The one shape of an expected outcome (STYLE: expected outcomes are values, not exceptions): a value,
 * or an error describing why there is none. Every module returns this instead of its own `{ok…}` shape.
 */
export type Result<T, E = string> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: E };

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });
