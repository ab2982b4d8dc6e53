/**
 * A revoked key's monitors, black-box over NATS: billing's revocation event (the one every gateway
 * drops its cached key on) stops them within a second, for good; they deliver nothing more while the
 * source goes on being polled for others, and they leave their account's limit on monitors.
 */
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, pullAll, startHarness } from "./harness.ts";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness?.stop();
});

const ACCOUNT = "acct_revocation000001";
const REVOKED_KEY = "key_revokedmonitor01";
const OTHER_KEY = "key_othermonitor0001";

async function statusOf(keyId: string, id: string): Promise<string | undefined> {
  const answer = await harness.ask("get", { key_id: keyId, account_id: ACCOUNT, id });
  return answer.ok ? answer.value.monitor.status : undefined;
}

describe("a revoked key's monitors", () => {
  it("stop within a second, deliver nothing more, and free their place in the account's limit", async () => {
    await harness.startReplica({ limits: { maxMonitorsPerAccount: 1, minIntervalSeconds: 1 } });
    const subreddit = harness.simulator.corpus.subreddits[0]!.name;
    const body = { kind: "post", subreddit, interval_seconds: 1 };
    const created = await harness.ask("create", { key_id: REVOKED_KEY, account_id: ACCOUNT, body });
    if (!created.ok) throw new Error(created.error);
    const { id } = created.value.monitor;
    await waitFor(
      async () => (await statusOf(REVOKED_KEY, id)) === "live",
      "the monitor to follow live",
      30_000,
    );
    // The account's one place is taken: another of its keys may not add a monitor.
    expect(await harness.ask("create", { key_id: OTHER_KEY, account_id: ACCOUNT, body })).toMatchObject({
      ok: false,
      status: 409,
    });

    harness.nats.publish(
      harness.subjects.billing.keyChanged,
      JSON.stringify({ key_id: REVOKED_KEY, change: "revoked" }),
    );
    const revokedAt = Date.now();
    await waitFor(async () => (await statusOf(REVOKED_KEY, id)) === "revoked", "the monitor to stop", 5_000);
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
    const heldWhenRevoked = (await pullAll(harness, REVOKED_KEY, id)).length;

    // Its place is free: the account's other key may add one, on the same source.
    const other = await harness.ask("create", { key_id: OTHER_KEY, account_id: ACCOUNT, body });
    if (!other.ok) throw new Error(other.error);
    const witness = other.value.monitor.id;
    await waitFor(
      async () => (await statusOf(OTHER_KEY, witness)) === "live",
      "the other monitor to follow",
      30_000,
    );

    // New posts arrive: the source is polled for the other key's monitor, never for the revoked one.
    harness.advance(6 * 3600);
    await waitFor(
      async () => (await pullAll(harness, OTHER_KEY, witness)).length > 0,
      "the other monitor to receive the new posts",
      30_000,
    );
    expect((await pullAll(harness, REVOKED_KEY, id)).length).toBe(heldWhenRevoked);

    // Stopped for good: it cannot be resumed, only deleted (which a revoked key's owner does in the portal).
    expect(
      await harness.ask("update", { key_id: REVOKED_KEY, account_id: ACCOUNT, id, body: { paused: false } }),
    ).toMatchObject({ ok: false, status: 409 });
    expect(await statusOf(REVOKED_KEY, id)).toBe("revoked");
    expect(await harness.ask("delete", { key_id: REVOKED_KEY, account_id: ACCOUNT, id })).toMatchObject({
      ok: true,
    });
  }, 120_000);
});
