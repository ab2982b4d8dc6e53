/**
 * One-time sign-in links. The token travels only in the email; Redis keeps its SHA-256 with the
 * address it proves and where to go afterwards. Using a link is `GETDEL`: atomic, so a link works
 * once even when two tabs race. The expiry is checked against the record's own time as well as by
 * Redis' TTL, so a link can never outlive its 15 minutes.
 */
import { err, ok, type Result } from "@rda/contracts";
import { z } from "zod";
import type { StoreContext } from "./context.ts";
import { newSecretToken, SECRET_TOKEN_PATTERN, sha256 } from "./secrets.ts";

const linkRecordSchema = z.object({
  email: z.string(),
  next: z.string(),
  expires_at: z.number(),
});

export interface LoginLink {
  readonly email: string;
  /** A path of this site to open after signing in. */
  readonly next: string;
}

/** Why a link does not work; the page says the same thing for each (ask for a new link). */
export type LinkProblem = "unknown_or_used" | "expired";

export interface LoginLinks {
  issue(link: LoginLink): Promise<string>;
  /** Reads a link without using it (the confirmation page). */
  peek(token: string): Promise<Result<LoginLink, LinkProblem>>;
  /** Uses a link: afterwards it works no more. */
  redeem(token: string): Promise<Result<LoginLink, LinkProblem>>;
}

export function createLoginLinks(context: StoreContext, ttlMs: number): LoginLinks {
  const { redis, keys, now } = context;
  const read = async (token: string, use: boolean) => {
    if (!SECRET_TOKEN_PATTERN.test(token)) return err("unknown_or_used" as const);
    const key = keys.loginLink(sha256(token));
    const stored = use ? await redis.getdel(key) : await redis.get(key);
    const record = stored === null ? undefined : linkRecordSchema.safeParse(JSON.parse(stored)).data;
    if (!record) return err("unknown_or_used" as const);
    if (record.expires_at <= now()) return err("expired" as const);
    return ok({ email: record.email, next: record.next });
  };
  return {
    async issue(link) {
      const token = newSecretToken();
      const record = { email: link.email, next: link.next, expires_at: now() + ttlMs };
      await redis.set(keys.loginLink(sha256(token)), JSON.stringify(record), "PX", ttlMs);
      return token;
    },
    peek: (token) => read(token, false),
    redeem: (token) => read(token, true),
  };
}
