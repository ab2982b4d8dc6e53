/** Exit codes of `pnpm admin`, stable so that scripts can trust them (documented in the README). */
export const EXIT = {
  ok: 0,
  /** The operation was refused (revoked key) or `ledger verify` found a mismatch. */
  failure: 1,
  /** Bad command line: unknown command or option, malformed number, amount below 5 USD. */
  usage: 2,
  /** No key with that id. */
  notFound: 3,
  /** Billing cannot be reached (NATS down, billing not running or too slow, or its Redis down). */
  unavailable: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What a command produced: a JSON value for `--json`, a text for people, an error for stderr. */
export interface CommandResult {
  readonly exitCode: ExitCode;
  readonly json?: unknown;
  readonly text?: string;
  readonly error?: string;
}
