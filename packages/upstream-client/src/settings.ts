/** The client's settings with their defaults, checked once at construction. */
import { DEADLINE_DEFAULTS } from "@rda/contracts";
import type { UpstreamClientOptions } from "./types.ts";

export interface ClientSettings {
  readonly deadlineMs: number;
  readonly attemptTimeoutMs: number;
  readonly maxRetries: number;
  readonly busyWaitMs: number;
  readonly backoffBaseMs: number;
  readonly backoffCapMs: number;
  readonly maxBodyBytes: number;
  readonly connections: number;
}

/** The deadline is UPSTREAM_DEADLINE_MS's default, which the bounds in @rda/contracts order. */
const DEFAULTS = {
  deadlineMs: DEADLINE_DEFAULTS.upstreamDeadlineMs,
  maxRetries: 3,
  busyWaitMs: 2_000,
  backoffBaseMs: 100,
  backoffCapMs: 2_000,
  maxBodyBytes: 20 * 1024 * 1024,
  // The pacer caps requests in flight product-wide (2 by default); a few spare sockets suffice.
  connections: 8,
} as const;

export function resolveSettings(options: UpstreamClientOptions): ClientSettings {
  const deadlineMs = options.deadlineMs ?? DEFAULTS.deadlineMs;
  const settings: ClientSettings = {
    deadlineMs,
    attemptTimeoutMs: options.attemptTimeoutMs ?? Math.ceil(deadlineMs / 2),
    maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
    busyWaitMs: options.busyWaitMs ?? DEFAULTS.busyWaitMs,
    backoffBaseMs: options.backoffBaseMs ?? DEFAULTS.backoffBaseMs,
    backoffCapMs: options.backoffCapMs ?? DEFAULTS.backoffCapMs,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    connections: options.connections ?? DEFAULTS.connections,
  };
  for (const [name, value] of Object.entries(settings)) {
    if (!Number.isInteger(value) || value < 0)
      throw new Error(`upstream client: ${name} must be an integer >= 0`);
  }
  return Object.freeze(settings);
}
