import { keyRevokedEventSchema } from "@rda/contracts";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "../src/secrets.ts";
import { type Harness, startHarness } from "./harness.ts";
import { createKey, debit, lookup, revoke } from "./ops.ts";

describe("revocation", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("revoke");
  });
  afterAll(() => h.close());

  it("publishes key_revoked within one second, after which debits say revoked and lookups flag the key", async () => {
    const { id, key } = await createKey(h);
    const events: string[] = [];
    const subscription = h.nats.subscribe(h.subjects.billing.keyRevoked, {
      callback: (_error, message) => {
        events.push(keyRevokedEventSchema.parse(message.json()).key_id);
      },
    });
    await h.nats.flush();
    try {
      expect(await revoke(h, id)).toEqual({ outcome: "revoked" });
      // DESIGN: revocation reaches every gateway within one second.
      await waitFor(() => events.includes(id), "the key_revoked event", 1_000);
      expect(await debit(h, id)).toEqual({ outcome: "revoked" });
      expect(await lookup(h, hashSecret(key))).toEqual({
        found: true,
        key: { id, rate_limit: { qps: 2, burst: 10 }, revoked: true },
      });
    } finally {
      subscription.unsubscribe();
    }
  });

  it("answers already_revoked on a second revocation and not_found for an unknown id", async () => {
    const { id } = await createKey(h);
    await revoke(h, id);
    expect(await revoke(h, id)).toEqual({ outcome: "already_revoked" });
    expect(await revoke(h, "key_0000000000000000")).toEqual({ outcome: "not_found" });
  });
});
