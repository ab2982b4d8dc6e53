import { describe, expect, it } from "vitest";
import { redisKeys } from "../src/index.ts";

const hashTag = (key: string) => /\{([^}]+)\}/.exec(key)?.[1];

describe("redisKeys", () => {
  it("keeps one API key's ledger data in one Redis Cluster slot", () => {
    const keys = redisKeys();
    const id = "key_0123456789abcdef";
    const tags = [keys.keyRecord(id), keys.journal(id), keys.debitMarker(id, "req-1")].map(hashTag);
    expect(new Set(tags)).toEqual(new Set([id]));
  });

  it("prefixes every key with the namespace so tests never touch a running stack's data", () => {
    const plain = redisKeys();
    const isolated = redisKeys("t-x-1");
    expect(isolated.keyRecord("key_a")).toBe(`t-x-1:${plain.keyRecord("key_a")}`);
    expect(isolated.globalReserveBucket.startsWith("t-x-1:")).toBe(true);
  });
});
