import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, journalTypes, startHarness } from "./harness.ts";
import { balanceOf, createKey, newRequestId, revoke, topUp, verify } from "./ops.ts";

describe("top-ups through billing", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("topups");
  });
  afterAll(() => h.close());

  it("adds the ladder's credits and journals them as a topup with the balance after", async () => {
    const created = await createKey(h);
    const { id } = created;
    expect(await topUp(h, id, 2_500)).toEqual({
      outcome: "ok",
      credits_added: 19_230,
      credits_balance: 19_563,
    });
    const [, last] = (await h.redis.xrevrange(h.keys.journal(id), "+", "-", "COUNT", 1))[0]!;
    expect(last).toEqual(
      expect.arrayContaining(["type", "topup", "delta", "19230", "balance_after", "19563"]),
    );
    expect((await verify(h)).ok).toBe(true);
  });

  it("adds credits once when the same top-up request id is retried", async () => {
    const created = await createKey(h, { credits: 0 });
    const { id } = created;
    const requestId = newRequestId();
    const first = await topUp(h, id, 500, requestId);
    expect(await topUp(h, id, 500, requestId)).toEqual(first);
    expect(await balanceOf(h, created)).toBe(3_333);
    expect(await journalTypes(h, id)).toEqual({ grant: 1, topup: 1 });
  });

  it("refuses 4.99 USD with the minimum and changes nothing", async () => {
    const created = await createKey(h, { credits: 1 });
    const { id } = created;
    expect(await topUp(h, id, 499)).toEqual({ outcome: "below_minimum", minimum_usd_cents: 500 });
    expect(await balanceOf(h, created)).toBe(1);
  });

  it("answers not_found for an unknown or malformed key id and revoked for a revoked key", async () => {
    expect(await topUp(h, "key_0000000000000000", 500)).toEqual({ outcome: "not_found" });
    expect(await topUp(h, "../../etc", 500)).toEqual({ outcome: "not_found" });
    const created = await createKey(h);
    const { id } = created;
    await revoke(h, id);
    expect(await topUp(h, id, 500)).toEqual({ outcome: "revoked" });
  });
});
