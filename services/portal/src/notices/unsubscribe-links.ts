/**
 * One-click unsubscribe links (RFC 8058) for the optional notice kinds: the link names the account
 * and the kind and carries an HMAC of both, so following it needs no sign-in and nothing is stored
 * per email. The HMAC key is derived from WEBHOOK_SEALING_KEY (its own purpose, so neither key
 * tells anything about the other). A link does not expire; it is revoked by the kind's generation
 * (`unsubscribe:<kind>` in the account's notice settings, absent until first replaced): switching
 * the kind back on replaces it, so an old email cannot switch it off again behind the person's back.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import type { PortalRedisKeys, Redis } from "@rda/service-kit";
import { NOTICE_KINDS, type NoticeKind } from "./notice-kinds.ts";

export interface UnsubscribeLinks {
  /** The address a notice email of `kind` carries. */
  url(accountId: string, kind: NoticeKind): Promise<string>;
  /** The account and kind a link's fields name, when its token is genuine and not revoked. */
  check(fields: {
    account?: unknown;
    kind?: unknown;
    token?: unknown;
  }): Promise<{ accountId: string; kind: NoticeKind } | undefined>;
  /** Old links of this kind stop working (called when the kind is switched back on). */
  revoke(accountId: string, kind: NoticeKind): Promise<void>;
}

const ACCOUNT_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function unsubscribeLinks(
  redis: Redis,
  keys: PortalRedisKeys,
  sealingKey: Buffer,
  portalUrl: string,
): UnsubscribeLinks {
  const hmacKey = Buffer.from(hkdfSync("sha256", sealingKey, "", "rda portal unsubscribe links", 32));
  const generation = async (accountId: string, kind: NoticeKind) =>
    (await redis.hgetall(keys.noticeSettings(accountId)))[`unsubscribe:${kind}`] ?? "0";
  const tokenOf = (accountId: string, kind: NoticeKind, gen: string) =>
    createHmac("sha256", hmacKey).update(`${accountId}|${kind}|${gen}`).digest("base64url");
  return {
    async url(accountId, kind) {
      const token = tokenOf(accountId, kind, await generation(accountId, kind));
      const query = new URLSearchParams({ account: accountId, kind, token });
      return `${portalUrl}/unsubscribe?${query}`;
    },
    async check({ account, kind, token }) {
      if (typeof account !== "string" || !ACCOUNT_ID.test(account)) return undefined;
      if (typeof kind !== "string" || !Object.hasOwn(NOTICE_KINDS, kind)) return undefined;
      const noticeKind = kind as NoticeKind;
      if (!NOTICE_KINDS[noticeKind].optional || typeof token !== "string") return undefined;
      const expected = Buffer.from(tokenOf(account, noticeKind, await generation(account, noticeKind)));
      const given = Buffer.from(token);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      return { accountId: account, kind: noticeKind };
    },
    async revoke(accountId, kind) {
      await redis.hset(
        keys.noticeSettings(accountId),
        `unsubscribe:${kind}`,
        randomBytes(9).toString("base64url"),
      );
    },
  };
}
