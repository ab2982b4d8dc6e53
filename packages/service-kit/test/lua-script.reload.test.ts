import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { luaScript, type Redis } from "../src/index.ts";
import { connectTestRedis, testNamespace } from "../src/testing/index.ts";

/** Scripts no Redis has seen: their source names this run's namespace. */
const namespace = testNamespace("lua");
const adder = (name: string) =>
  luaScript(`-- ${namespace} ${name}
return redis.call('INCRBY', KEYS[1], ARGV[1])`);
const counter = adder("alone");
const batchCounter = adder("batch");
const echo = luaScript(`-- ${namespace} echo
return {ARGV[1], ARGV[2]}`);

let redis: Redis;
beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis.del(`${namespace}:a`, `${namespace}:b`);
  redis.disconnect();
});

describe("a Lua script", () => {
  it("runs on a Redis that has never seen it, alone or many calls in one round trip", async () => {
    expect(await redis.script("EXISTS", counter.sha)).toEqual([0]);
    expect(await counter.run(redis, [`${namespace}:a`], [2])).toBe(2);
    expect(await redis.script("EXISTS", batchCounter.sha)).toEqual([0]);
    const replies = await batchCounter.runMany(redis, [
      { keys: [`${namespace}:b`], args: [1] },
      { keys: [`${namespace}:b`], args: [10] },
      { keys: [`${namespace}:a`], args: [3] },
    ]);
    expect(replies).toEqual([
      { ok: true, value: 1 },
      { ok: true, value: 11 },
      { ok: true, value: 5 },
    ]);
  });

  it("answers each call of a batch on its own: one Redis refused does not fail the others", async () => {
    await redis.set(`${namespace}:a`, "not a number");
    const [refused, counted] = await counter.runMany(redis, [
      { keys: [`${namespace}:a`], args: [1] },
      { keys: [`${namespace}:b`], args: [1] },
    ]);
    expect(refused).toMatchObject({
      ok: false,
      error: expect.objectContaining({ message: expect.stringMatching(/not an integer/) }),
    });
    expect(counted).toEqual({ ok: true, value: 12 });
  });

  it("hands stored bytes back as bytes when asked, on a Redis that has never seen it", async () => {
    const bytes = Buffer.from([0xff, 0x00, 0xfe]);
    expect(await redis.script("EXISTS", echo.sha)).toEqual([0]);
    const [stored, text] = (await echo.runForBytes(redis, [], [bytes, "plain"])) as Buffer[];
    expect(Buffer.compare(stored!, bytes)).toBe(0);
    expect(text!.toString()).toBe("plain");
  });
});
