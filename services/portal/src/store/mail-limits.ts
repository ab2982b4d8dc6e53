/**
 * How many sign-in emails may go out, in fixed windows in Redis shared by every portal replica. The
 * limits must bound mail without letting a stranger lock an address's owner out, so they count:
 *
 * - per address *and* requesting client (`perAddress`): one client cannot flood one inbox, and its
 *   requests use up only its own allowance for that address, never the owner's;
 * - per address over all clients (`perAddressAllClients`, wider): many clients together cannot
 *   flood one inbox either. A browser that has signed in to this address before (it holds the
 *   address's device cookie, store/devices.ts) is not counted here: the owner's own browser gets
 *   through a flood from elsewhere, counted per address and device instead;
 * - per client (`perClient`): one client cannot spray many addresses (a known device is exempt,
 *   so a shared network's flood does not stop it either).
 *
 * A request counts against every limit it is subject to only when it passes them all.
 */
import { isIPv6 } from "node:net";
import { err, ok, type Result } from "@rda/contracts";
import { luaScript, type Redis } from "@rda/service-kit";
import type { MailLimits } from "../settings.ts";
import type { StoreContext } from "./context.ts";
import { sha256 } from "./secrets.ts";

export interface MailRefusal {
  readonly scope: "address" | "client";
  readonly retryAfterSeconds: number;
}

export interface MailLimiter {
  /**
   * `deviceId`: the device cookie's id when this browser has signed in to `email` before
   * (store/devices.ts), else undefined.
   */
  allowSignInMail(email: string, clientIp: string, deviceId?: string): Promise<Result<void, MailRefusal>>;
}

/**
 * Takes one place in a window: counts, starts the window's expiry on its first request, and gives
 * the place back when the window is full, in one step so concurrent requests cannot both take the
 * last place. Returns 0, or the seconds until the window ends. One key per script: the two counters
 * may live on different Redis Cluster nodes.
 */
const takeScript = luaScript(`
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
if count <= tonumber(ARGV[1]) then return 0 end
redis.call('DECR', KEYS[1])
local ttl = redis.call('TTL', KEYS[1])
if ttl < 1 then return 1 end
return ttl
`);

/** Gives a place back, unless its window has ended meanwhile (a bare DECR would start a window at -1). */
const giveBackScript = luaScript(
  `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('DECR', KEYS[1]) end`,
);

/** Takes one place of `max` in the fixed window `key`: 0, or the seconds until the window ends. */
export async function takePlace(redis: Redis, key: string, max: number, windowSeconds: number) {
  return Number(await takeScript.run(redis, [key], [max, windowSeconds]));
}

export function createMailLimiter(context: StoreContext, limits: MailLimits): MailLimiter {
  const { redis, keys } = context;
  const take = (key: string, max: number) => takePlace(redis, key, max, limits.windowSeconds);
  const giveBack = (key: string) => giveBackScript.run(redis, [key], []);
  const allClients = limits.perAddressAllClients ?? limits.perAddress * 4;
  return {
    async allowSignInMail(email, clientIp, deviceId) {
      const emailHash = sha256(email);
      const client = clientBucket(clientIp);
      // Each limit this request is subject to, in order; a place taken is given back on a refusal.
      const checks: { key: string; max: number; scope: MailRefusal["scope"] }[] =
        deviceId === undefined
          ? [
              { key: keys.mailsToAddressFrom(emailHash, client), max: limits.perAddress, scope: "address" },
              { key: keys.mailsToAddress(emailHash), max: allClients, scope: "address" },
              { key: keys.mailsFromClient(client), max: limits.perClient, scope: "client" },
            ]
          : [
              {
                key: keys.mailsToAddressFrom(emailHash, `device:${deviceId}`),
                max: limits.perAddress,
                scope: "address",
              },
            ];
      const taken: string[] = [];
      for (const check of checks) {
        const wait = await take(check.key, check.max);
        if (wait === 0) {
          taken.push(check.key);
          continue;
        }
        await Promise.all(taken.map(giveBack));
        return err({ scope: check.scope, retryAfterSeconds: wait });
      }
      return ok(undefined);
    },
  };
}

/**
 * What one client is, for counting: an IPv4 address, or an IPv6 /64 (one customer network: an ISP
 * hands out whole /64s, so counting single IPv6 addresses would let one client rotate freely).
 */
export function clientBucket(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  const [head = "", tail = ""] = ip.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = ip.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}
