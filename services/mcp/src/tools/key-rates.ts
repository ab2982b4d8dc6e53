/**
 * The rate limit of keys, to state in the text of a per-key 429. The 429 itself carries only
 * Retry-After; GET /v1/account tells the limit, but it draws from the same bucket, so right after a
 * 429 it is usually refused too (a refused request spends no token, so asking costs nothing). So each
 * account answer this replica sees is remembered, by the key's hash, and used when the fresh ask is
 * refused. A cache only: a replica that never saw the key says the limit is unknown.
 */
import { hashApiKey } from "@rda/service-kit";
import type { KeyRate } from "../results/tool-errors.ts";

export interface KeyRates {
  remember(apiKey: string, rate: KeyRate): void;
  recall(apiKey: string): KeyRate | undefined;
}

export function createKeyRates(capacity = 10_000): KeyRates {
  const rates = new Map<string, KeyRate>();
  return {
    remember(apiKey, rate) {
      const id = hashApiKey(apiKey);
      rates.delete(id);
      rates.set(id, { qps: rate.qps, burst: rate.burst });
      // A Map iterates in insertion order: the first key is the one not seen for longest.
      if (rates.size > capacity) rates.delete(rates.keys().next().value as string);
    },
    recall: (apiKey) => rates.get(hashApiKey(apiKey)),
  };
}
