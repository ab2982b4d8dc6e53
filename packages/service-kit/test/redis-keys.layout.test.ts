import { describe, expect, it } from "vitest";
import { redisKeys } from "../src/index.ts";

const hashTag = (key: string) => /\{([^}]+)\}/.exec(key)?.[1];

describe("redisKeys", () => {
  it("keeps one API key's ledger data in one Redis Cluster slot", () => {
    const keys = redisKeys();
    const id = "key_0123456789abcdef";
    const tags = [
      keys.keyRecord(id),
      keys.journal(id),
      keys.debitMarker(id, "req-1"),
      keys.topUpMarker(id, "req-2"),
      keys.usageDay(id, "2026-11-23"),
      keys.keyRateBucket(id),
    ].map(hashTag);
    expect(new Set(tags)).toEqual(new Set([id]));
  });

  it("keeps one account's key counters in one slot", () => {
    const keys = redisKeys();
    const account = "acct_0123456789abcdef";
    expect(new Set([keys.accountKeys(account), keys.accountKeyCounts(account)].map(hashTag))).toEqual(
      new Set([account]),
    );
  });

  it("keeps a portal account's record and session list in one slot, apart from the ledger", () => {
    const keys = redisKeys();
    const account = "acct_0123456789abcdef";
    const portal = [keys.portal.account(account), keys.portal.accountSessions(account)];
    expect(new Set(portal.map(hashTag))).toEqual(new Set([account]));
    for (const key of [...portal, keys.portal.session("ab"), keys.portal.loginLink("cd")]) {
      expect(key.startsWith("rda:portal:")).toBe(true);
    }
  });

  it("prefixes every key with the namespace so tests never touch a running stack's data", () => {
    const plain = redisKeys();
    const isolated = redisKeys("t-x-1");
    expect(isolated.keyRecord("key_a")).toBe(`t-x-1:${plain.keyRecord("key_a")}`);
    expect(isolated.pendingDebits.startsWith("t-x-1:")).toBe(true);
    expect(isolated.portal.session("ab")).toBe(`t-x-1:${plain.portal.session("ab")}`);
  });
});
