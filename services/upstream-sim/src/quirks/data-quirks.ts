/**
 * The data quirks of the strict profile (profile.ts), each a small pure step the routes apply:
 * which query's first answer is a transient empty page, which rule descriptions are null, how a bound
 * reads when `after` includes its second, and old epochs written as strings.
 */
import { hashSeed } from "../corpus/prng.ts";
import type { Rule } from "../corpus/types.ts";
import type { SimQuirks } from "../profile.ts";

/** A stable fraction in [0, 1) for a seed and a text (FNV-1a, mixed with the seed). */
export function fractionOf(seed: number, text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return hashSeed(seed, h >>> 0) / 4294967296;
}

/** Search queries chosen by the seed answer `{"data": []}` the first time they are asked. */
export class TransientEmptyPages {
  readonly #seed: number;
  readonly #rate: number;
  readonly #answered = new Set<string>();

  constructor(seed: number, rate: number) {
    this.#seed = seed;
    this.#rate = rate;
  }

  /** True when this ask of `url` (path and query) gets the transient empty page. */
  strikes(url: string): boolean {
    if (this.#rate <= 0 || fractionOf(this.#seed, url) >= this.#rate) return false;
    if (this.#answered.has(url)) return false;
    // Bounded memory: forgetting only makes a query empty once more, which is still transient.
    if (this.#answered.size >= 100_000) this.#answered.clear();
    this.#answered.add(url);
    return true;
  }
}

/** Rules with some descriptions null, as about 1 % are in the upstream's rules dump. */
export function withNullDescriptions(
  seed: number,
  rate: number,
  subreddit: string,
  rules: readonly Rule[],
): readonly (Rule | (Omit<Rule, "description"> & { description: null }))[] {
  if (rate <= 0) return rules;
  return rules.map((rule, index) =>
    fractionOf(seed, `${subreddit}/${index}`) < rate ? { ...rule, description: null } : rule,
  );
}

/**
 * The exclusive bounds that select what the upstream would under the profile's reading. With `after`
 * inclusive, `after=t` selects `created_utc >= t`: over whole seconds the exclusive bound ceil(t) - 1
 * (a bound given in milliseconds can fall inside a second); with `before` inclusive, floor(t) + 1.
 */
export function exclusiveBounds<T extends { after?: number | undefined; before?: number | undefined }>(
  search: T,
  quirks: SimQuirks,
): T {
  const { after, before } = search;
  return {
    ...search,
    after: after !== undefined && quirks.afterInclusive ? Math.ceil(after) - 1 : after,
    before: before !== undefined && quirks.beforeInclusive ? Math.floor(before) + 1 : before,
  };
}

const EPOCH_FIELD = /"(created_utc|created|retrieved_on)":(\d+)(?=[,}])/g;

/**
 * Epoch fields earlier than `before` rewritten as numeric strings in a JSON text. Only keys are
 * matched: inside a JSON string a quote is escaped, so text that merely looks like a key is left alone.
 */
export function stringifyOldEpochs(json: string, before: number): string {
  return json.replace(EPOCH_FIELD, (whole, key: string, value: string) =>
    Number(value) < before ? `"${key}":"${value}"` : whole,
  );
}

/**
 * The items a search cannot find yet because the archive ingests them late (`lateIngestShare`,
 * `lateIngestSeconds`): a predicate on an item's index, or undefined when the quirk is off.
 */
export function ingestedLate(
  quirks: SimQuirks,
  seed: number,
  kind: "post" | "comment",
  created: Int32Array,
  anchor: number,
  now: number,
): ((item: number) => boolean) | undefined {
  if (quirks.lateIngestShare <= 0 || quirks.lateIngestSeconds <= 0) return undefined;
  const visibleBefore = now - quirks.lateIngestSeconds;
  return (item) =>
    anchor + (created[item] as number) > visibleBefore &&
    fractionOf(seed, `${kind}${item}`) < quirks.lateIngestShare;
}
