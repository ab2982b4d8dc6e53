import { API_KEY_PATTERN, KEY_ID_PATTERN } from "@rda/contracts";
import type { Redis } from "@rda/service-kit";
import { hashApiKey } from "@rda/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.ts";
import { createKey, debit, lookup, revoke, topUp } from "./ops.ts";

/** Every key name and value of the namespace, whatever the type, as one string to search. */
async function dumpNamespace(redis: Redis, namespace: string): Promise<string> {
  const parts: string[] = [];
  let cursor = "0";
  do {
    const [next, names] = await redis.scan(cursor, "MATCH", `${namespace}:*`, "COUNT", 500);
    for (const name of names) parts.push(name, await dumpValue(redis, name));
    cursor = next;
  } while (cursor !== "0");
  return parts.join("\n");
}

async function dumpValue(redis: Redis, name: string): Promise<string> {
  const type = await redis.type(name);
  if (type === "string") return (await redis.get(name)) ?? "";
  if (type === "hash") return JSON.stringify(await redis.hgetall(name));
  if (type === "set") return JSON.stringify(await redis.smembers(name));
  if (type === "stream") return JSON.stringify(await redis.xrange(name, "-", "+"));
  return `<${type}>`;
}

describe("key secrets", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("secrets");
  });
  afterAll(() => h.close());

  it("creates keys of the contract's format with 256 random bits and finds them by hash", async () => {
    const created = await Promise.all([createKey(h), createKey(h)]);
    for (const { id, key } of created) {
      expect(key).toMatch(API_KEY_PATTERN);
      expect(id).toMatch(KEY_ID_PATTERN);
      expect(await lookup(h, hashApiKey(key))).toMatchObject({ found: true, key: { id, revoked: false } });
    }
    expect(created[0]!.key).not.toBe(created[1]!.key);
    expect(await lookup(h, hashApiKey("rdk_not-a-key"))).toEqual({ found: false });
  });

  it("stores and logs no secret in clear, only its SHA-256", async () => {
    const created = await createKey(h, { label: "secret check" });
    const { id, key } = created;
    await debit(h, created);
    await topUp(h, id, 500);
    await lookup(h, hashApiKey(key));
    await revoke(h, id);
    const stored = await dumpNamespace(h.redis, h.namespace);
    expect(stored).toContain(hashApiKey(key));
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(key.slice(4));
    const logged = h.logLines();
    expect(logged).toContain(id);
    expect(logged).not.toContain(key.slice(4, 24));
  });
});
