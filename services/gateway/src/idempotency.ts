/**
 * `Idempotency-Key` on data requests (docs/api.md#idempotency), as Stripe does it: the first request
 * with a key claims it; once that request was served and charged, its response is stored and every
 * later request with the same key, the same API key and the same method, path and query gets that
 * response again — with its original credit figures, and charged nothing more. A request refunded or
 * voided is not stored: the retry is a new attempt. The same key with a different request is refused
 * (422); while the first is still being served, a duplicate is refused (409). The store is Redis, so
 * every gateway replica sees the same keys; the ledger's request ids stay gateway-generated.
 */
import { createHash } from "node:crypto";
import { err, ok, type Result } from "@rda/contracts";
import type { Redis, RedisKeys } from "@rda/service-kit";

/** How long a served response can be replayed, by default. */
export const REPLAY_SECONDS = 24 * 60 * 60;
/** Larger responses are not stored; a retry of one is a new request. */
export const MAX_STORED_BODY_BYTES = 1_048_576;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** KEYS: the record. ARGV: request fingerprint, claim ttl (ms). */
const CLAIM = `
local record = redis.call('HMGET', KEYS[1], 'state', 'fingerprint', 'body', 'credits_used', 'credits_remaining')
if not record[1] then
  redis.call('HSET', KEYS[1], 'state', 'pending', 'fingerprint', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {'claimed'}
end
if record[2] ~= ARGV[1] then return {'mismatch'} end
if record[1] == 'pending' then return {'in_progress'} end
return {'replay', record[3], record[4], record[5]}
`;

/** KEYS: the record. ARGV: fingerprint, body, credits used, credits remaining, ttl (s). */
const COMPLETE = `
local record = redis.call('HMGET', KEYS[1], 'state', 'fingerprint')
if record[1] ~= 'pending' or record[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'served', 'body', ARGV[2], 'credits_used', ARGV[3], 'credits_remaining', ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
`;

/** KEYS: the record. ARGV: fingerprint. A claim whose request was not served is let go. */
const RELEASE = `
local record = redis.call('HMGET', KEYS[1], 'state', 'fingerprint')
if record[1] == 'pending' and record[2] == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

export interface StoredResponse {
  readonly body: Buffer;
  readonly creditsUsed: number;
  readonly creditsRemaining: number;
}

export type ClaimOutcome =
  | { readonly kind: "claimed"; readonly claim: Claim }
  | { readonly kind: "replay"; readonly response: StoredResponse }
  | { readonly kind: "mismatch" }
  | { readonly kind: "in_progress" };

export interface Claim {
  /** The request was served and charged: store its response for replays. */
  complete(response: StoredResponse): Promise<void>;
  /** The request was refused, refunded or voided: a retry is a new attempt. */
  release(): Promise<void>;
}

export interface IdempotencyStore {
  claim(keyId: string, idempotencyKey: string, request: string, claimTtlMs: number): Promise<ClaimOutcome>;
}

/** Reads the header: undefined when absent; an error sentence when it is malformed or repeated. */
export function readIdempotencyKey(header: string | string[] | undefined): Result<string | undefined> {
  if (header === undefined) return ok(undefined);
  if (typeof header !== "string" || !KEY_PATTERN.test(header)) {
    return err("Idempotency-Key must be given once, as 1 to 255 visible ASCII characters");
  }
  return ok(header);
}

type Scripted = (key: string, ...args: (string | number | Buffer)[]) => Promise<unknown>;

export function createIdempotencyStore(
  redis: Redis,
  keys: RedisKeys,
  replaySeconds: number = REPLAY_SECONDS,
): IdempotencyStore {
  redis.defineCommand("rdaIdempotencyClaim", { numberOfKeys: 1, lua: CLAIM });
  redis.defineCommand("rdaIdempotencyComplete", { numberOfKeys: 1, lua: COMPLETE });
  redis.defineCommand("rdaIdempotencyRelease", { numberOfKeys: 1, lua: RELEASE });
  const commands = redis as unknown as Record<
    "rdaIdempotencyClaim" | "rdaIdempotencyComplete" | "rdaIdempotencyRelease",
    Scripted
  > & { rdaIdempotencyClaimBuffer: Scripted };
  return {
    async claim(keyId, idempotencyKey, request, claimTtlMs) {
      const record = keys.idempotentRequest(keyId, sha256(idempotencyKey));
      const fingerprint = sha256(request);
      const reply = (await commands.rdaIdempotencyClaimBuffer(record, fingerprint, claimTtlMs)) as Buffer[];
      const outcome = reply[0]?.toString();
      if (outcome === "mismatch" || outcome === "in_progress") return { kind: outcome };
      if (outcome === "replay") {
        const [, body, used, remaining] = reply;
        return {
          kind: "replay",
          response: { body: body!, creditsUsed: Number(used), creditsRemaining: Number(remaining) },
        };
      }
      return {
        kind: "claimed",
        claim: {
          async complete(response) {
            if (response.body.length > MAX_STORED_BODY_BYTES) return this.release();
            await commands.rdaIdempotencyComplete(
              record,
              fingerprint,
              response.body,
              response.creditsUsed,
              response.creditsRemaining,
              replaySeconds,
            );
          },
          async release() {
            await commands.rdaIdempotencyRelease(record, fingerprint);
          },
        },
      };
    },
  };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
