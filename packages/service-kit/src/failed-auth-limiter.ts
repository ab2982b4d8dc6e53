/**
 * A limit on refused credentials per client address (docs/api.md#rate-limits), so that a flood of
 * bad keys cannot tax billing: each address has a token bucket (`burst` tokens, refilled at `qps`)
 * and every refused key — malformed, unknown or revoked — takes a token. While its bucket is empty
 * the address is throttled: a key is answered 429 without being looked up. The gateway still serves
 * a key it already knows to be valid, so a good caller behind the same address as a flood keeps
 * working (services/gateway/src/http/authenticate.ts); the portal's usage JSON, which a script opens
 * with its key, applies the same limit (services/portal/src/routes/usage-json.ts).
 *
 * Each process keeps its own buckets in memory: no store is asked on this path, which is the point.
 * IPv6 addresses count by their /64 prefix, the block one subscriber usually holds.
 */
import { isIPv6 } from "node:net";

export interface FailedAuthLimits {
  /** Refused keys an address may send in a row (FAILED_AUTH_BURST). */
  readonly burst: number;
  /** Refused keys per second an address may send beyond that (FAILED_AUTH_QPS). */
  readonly qps: number;
}

export interface FailedAuthLimiter {
  /** Seconds until the address may have an unknown key looked up again; undefined when it may now. */
  throttledFor(address: string): number | undefined;
  /** A key sent from this address was refused. */
  refused(address: string): void;
}

interface Bucket {
  tokens: number;
  at: number;
}

const MAX_ADDRESSES = 100_000;

export function createFailedAuthLimiter(
  limits: FailedAuthLimits,
  now: () => number = Date.now,
): FailedAuthLimiter {
  const buckets = new Map<string, Bucket>();
  const level = (bucket: Bucket | undefined, at: number) =>
    bucket ? Math.min(limits.burst, bucket.tokens + ((at - bucket.at) * limits.qps) / 1000) : limits.burst;
  return {
    throttledFor(address) {
      const tokens = level(buckets.get(addressKey(address)), now());
      return tokens >= 1 ? undefined : Math.max(1, Math.ceil((1 - tokens) / limits.qps));
    },
    refused(address) {
      const key = addressKey(address);
      const at = now();
      const tokens = Math.max(0, level(buckets.get(key), at) - 1);
      // Oldest first: an address seen long ago is the one whose bucket has most likely refilled.
      buckets.delete(key);
      if (buckets.size >= MAX_ADDRESSES) buckets.delete(buckets.keys().next().value ?? "");
      buckets.set(key, { tokens, at });
    },
  };
}

/** An IPv4 address as it is (also when IPv4-mapped), an IPv6 address as its /64 prefix. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = "", tail = ""] = address.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = address.includes("::")
    ? [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
