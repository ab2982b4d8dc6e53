/** Ids in Stripe's form: a type prefix and random base62 characters (`pi_3Pq…`, `cs_test_a1…`). */
import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function newId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let id = prefix;
  for (const byte of bytes) id += BASE62[byte % BASE62.length];
  return id;
}

/** Epoch seconds, Stripe's unit of time. */
export const epochSeconds = (ms = Date.now()) => Math.floor(ms / 1000);
