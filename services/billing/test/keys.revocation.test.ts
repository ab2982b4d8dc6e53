import { admitReplySchema, lookupKeyReplySchema, rotateKeyReplySchema } from "@rda/contracts";
import { hashApiKey } from "@rda/service-kit";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.ts";
import { balanceOf, createKey, debit, lookup, newRequestId, revoke, watchKeyChanges } from "./ops.ts";

describe("revocation", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("revoke");
  });
  afterAll(() => h.close());

  it("publishes key_changed within one second, after which debits say revoked and lookups flag the key", async () => {
    const created = await createKey(h);
    const { id, key } = created;
    const { events, stop } = await watchKeyChanges(h);
    try {
      expect(await revoke(h, id)).toEqual({ outcome: "revoked" });
      // docs/api.md#authentication: a revocation reaches every gateway within one second.
      await waitFor(() => events.includes(`${id} revoked`), "the key_changed event", 1_000);
      expect(await debit(h, created)).toEqual({ outcome: "revoked" });
      expect(await lookup(h, hashApiKey(key))).toEqual({
        found: true,
        key: { id, rate_limit: { qps: 2, burst: 10 }, revoked: true, account_id: null },
      });
    } finally {
      stop();
    }
  });

  it("answers already_revoked on a second revocation and not_found for an unknown id", async () => {
    const created = await createKey(h);
    const { id } = created;
    await revoke(h, id);
    expect(await revoke(h, id)).toEqual({ outcome: "already_revoked" });
    expect(await revoke(h, "key_0000000000000000")).toEqual({ outcome: "not_found" });
  });

  describe("a caller bound to the key id (an OAuth grant), not to its secret", () => {
    const admitById = (id: string) =>
      h.request(
        h.subjects.billing.admit,
        {
          key_id: id,
          request_id: newRequestId(),
          operation: "mcp",
          credits: 1,
          pending_ms: 60_000,
        },
        admitReplySchema,
      );

    it("is looked up and charged by id, keeps working after a rotation, and is refused once the key is revoked", async () => {
      const created = await createKey(h);
      const byId = await h.request(
        h.subjects.billing.lookupKey,
        { key_id: created.id },
        lookupKeyReplySchema,
      );
      expect(byId).toEqual({
        found: true,
        key: { id: created.id, rate_limit: { qps: 2, burst: 10 }, revoked: false, account_id: null },
      });
      const before = await balanceOf(h, created);
      expect((await admitById(created.id)).outcome).toBe("admitted");
      expect(await balanceOf(h, created)).toBe(before - 1);
      await h.request(h.subjects.billing.rotateKey, { id: created.id }, rotateKeyReplySchema);
      expect((await admitById(created.id)).outcome).toBe("admitted");
      await revoke(h, created.id);
      expect(await admitById(created.id)).toEqual({ outcome: "revoked" });
    });
  });
});
