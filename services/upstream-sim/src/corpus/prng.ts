/**
 * Small seeded PRNG (mulberry32) and helpers. Corpus data must never come from
 * Math.random: two simulators with the same seed must serve the same bytes.
 */
export type Rng = () => number;

export function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes numbers into one 32-bit seed, so that per-item generators are independent. */
export function hashSeed(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x01000193);
    h = Math.imul(h ^ Math.floor(part / 4294967296), 0x5bd1e995);
    h ^= h >>> 13;
  }
  return h >>> 0;
}

export function intBetween(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  const item = items[Math.floor(rng() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

export function chance(rng: Rng, probability: number): boolean {
  return rng() < probability;
}

/** Standard normal deviate (Box-Muller). */
function gaussian(rng: Rng): number {
  const u = Math.max(rng(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

export function logNormal(rng: Rng, mu: number, sigma: number): number {
  return Math.exp(mu + sigma * gaussian(rng));
}

/** Cumulative weights for weighted picks by binary search. */
export function cumulative(weights: ArrayLike<number>): Float64Array {
  const out = new Float64Array(weights.length);
  let sum = 0;
  for (let i = 0; i < weights.length; i++) {
    sum += weights[i] ?? 0;
    out[i] = sum;
  }
  return out;
}

export function weightedIndex(rng: Rng, cumulativeWeights: Float64Array): number {
  const total = cumulativeWeights[cumulativeWeights.length - 1] ?? 0;
  const target = rng() * total;
  let lo = 0;
  let hi = cumulativeWeights.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((cumulativeWeights[mid] ?? 0) > target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export function shuffleInPlace<T>(rng: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const tmp = items[i] as T;
    items[i] = items[j] as T;
    items[j] = tmp;
  }
  return items;
}
