import { z } from "zod";
import type { Rng } from "../corpus/prng.ts";
import { mulberry32 } from "../corpus/prng.ts";

export const FAULT_MODES = ["error", "busy", "ratelimit", "timeout", "garbage"] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

/** Body of POST /__sim/faults (docs/operations.md#fault-control). */
export const faultSpecSchema = z
  .object({
    mode: z.enum(FAULT_MODES),
    /** Probability that a matching request fails (default 1). */
    rate: z.number().min(0).max(1).default(1),
    /** Only requests whose path starts with this prefix. */
    path: z.string().startsWith("/").max(200).optional(),
    /** Only the next N matching requests are considered; then the fault expires. */
    count: z.number().int().min(1).optional(),
  })
  .strict();

export type FaultSpec = z.output<typeof faultSpecSchema>;

export interface ActiveFault {
  readonly id: number;
  readonly spec: FaultSpec;
  remaining: number | null;
  injected: number;
}

/** A decision to fail one request: the mode, and the how-many-th injection of that fault it is. */
export interface FaultHit {
  readonly mode: FaultMode;
  readonly nth: number;
}

/**
 * The active faults. Draws come from a seeded PRNG, so a test that sets a rate
 * sees the same sequence on every run; count-based faults need no luck at all.
 */
export class FaultRegistry {
  #faults: ActiveFault[] = [];
  #nextId = 1;
  #injected = 0;
  readonly #rng: Rng;

  constructor(seed: number) {
    this.#rng = mulberry32(seed ^ 0x5eed_fa17);
  }

  get injected(): number {
    return this.#injected;
  }

  add(spec: FaultSpec): ActiveFault {
    const fault: ActiveFault = { id: this.#nextId++, spec, remaining: spec.count ?? null, injected: 0 };
    this.#faults.push(fault);
    return fault;
  }

  clear(): void {
    this.#faults = [];
  }

  resetCounter(): void {
    this.#injected = 0;
  }

  list(): ActiveFault[] {
    return [...this.#faults];
  }

  /** Whether this request fails, consuming one use of each fault it passes. */
  draw(path: string): FaultHit | undefined {
    for (const fault of this.#faults) {
      if (fault.spec.path !== undefined && !path.startsWith(fault.spec.path)) continue;
      if (fault.remaining !== null) fault.remaining -= 1;
      const hit = this.#rng() < fault.spec.rate;
      if (fault.remaining === 0) this.#faults = this.#faults.filter((f) => f !== fault);
      if (!hit) continue;
      fault.injected += 1;
      this.#injected += 1;
      return { mode: fault.spec.mode, nth: fault.injected };
    }
    return undefined;
  }
}
