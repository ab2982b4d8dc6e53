/**
 * How many sign-in emails may go out: per address (so nobody can flood someone's inbox) and per
 * client address (so one client cannot spray many addresses). Fixed windows in Redis, shared by
 * every portal replica; a request counts against both limits only when it passes both.
 */
import { isIPv6 } from "node:net";
import { err, ok, type Result } from "@rda/contracts";
import { luaScript } from "@rda/service-kit";
import type { MailLimits } from "../settings.ts";
import type { StoreContext } from "./context.ts";
import { sha256 } from "./secrets.ts";

export interface MailRefusal {
  readonly scope: "address" | "client";
  readonly retryAfterSeconds: number;
}

export interface MailLimiter {
  admit(email: string, clientIp: string): Promise<Result<void, MailRefusal>>;
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

export function createMailLimiter(context: StoreContext, limits: MailLimits): MailLimiter {
  const { redis, keys } = context;
  const take = async (key: string, max: number) =>
    Number(await takeScript.run(redis, [key], [max, limits.windowSeconds]));
  return {
    async admit(email, clientIp) {
      const addressKey = keys.mailsToAddress(sha256(email));
      const addressWait = await take(addressKey, limits.perAddress);
      if (addressWait > 0) return err({ scope: "address", retryAfterSeconds: addressWait });
      const clientWait = await take(keys.mailsFromClient(clientBucket(clientIp)), limits.perClient);
      if (clientWait === 0) return ok(undefined);
      await giveBackScript.run(redis, [addressKey], []);
      return err({ scope: "client", retryAfterSeconds: clientWait });
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
