/**
 * Bounds of the values an operator or the portal may give a key or a top-up. Billing refuses a
 * request outside them (key-messages.ts uses these), and the operator CLI checks them before sending, so
 * both say the same thing.
 */
export const KEY_LIMITS = {
  credits: { min: 0, max: 1_000_000_000 },
  qps: { min: 1, max: 100_000 },
  burst: { min: 1, max: 1_000_000 },
  labelMaxLength: 200,
  /** A key's monthly spend cap, in credits per calendar month (UTC). */
  monthlyCap: { min: 1, max: 1_000_000_000 },
} as const;

/** One top-up: at least 5 USD (the price ladder starts there), at most 10,000 USD. */
export const TOP_UP_LIMITS = {
  minUsdCents: 500,
  maxUsdCents: 1_000_000,
} as const;

/**
 * The most credits one key's balance may hold. Far below 2^53 (the largest integer a double keeps
 * exact, in JavaScript and in Redis' Lua alike) and below 10^14, past which Lua writes a number into a
 * string (a journal entry, a debit marker) with an exponent and drops digits. A top-up that would
 * cross it is refused; nothing else adds that much.
 */
export const BALANCE_LIMITS = { maxCredits: 1_000_000_000_000 } as const;

/** Days of usage one request may look back over, today included. */
export const USAGE_DAYS_LIMITS = { min: 1, max: 400 } as const;

/**
 * Characters that change how the text around them is displayed without being seen themselves: the
 * bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and the direction
 * marks (U+200E, U+200F, U+061C). In a key's label, shown on pages, in receipts and in the operator
 * CLI, they could make one label read as another ("‮txt.exe" shows as "exe.txt"), so a label may not
 * hold them.
 */
export const BIDI_CONTROL_PATTERN = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/** Why a label cannot be used, in one sentence; undefined when it can. */
export function labelProblem(label: string): string | undefined {
  if (BIDI_CONTROL_PATTERN.test(label)) {
    return "a label may not contain invisible direction controls (such as U+202E, right-to-left override): type it again without them";
  }
  if (/\p{Cc}/u.test(label)) return "a label may not contain control characters such as line breaks or tabs";
  return undefined;
}
