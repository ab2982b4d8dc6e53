import { randomBytes } from "node:crypto";
import {
  createKeyReplySchema,
  keyUsageReplySchema,
  listKeysReplySchema,
  revokeKeyReplySchema,
  rotateKeyReplySchema,
  showKeyReplySchema,
} from "@rda/contracts";
import { hashApiKey, publishRefund } from "@rda/service-kit";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness, TEST_SETTINGS } from "./harness.ts";
import {
  admit,
  balanceOf,
  createKey,
  debit,
  lookup,
  newRequestId,
  revoke,
  topUp,
  verify,
  watchKeyChanges,
} from "./ops.ts";

/** A fresh account id per test: the limits below are per account. */
const newAccount = () =>
  `acct_${BigInt(`0x${randomBytes(8).toString("hex")}`)
    .toString(36)
    .padStart(16, "0")
    .slice(-16)}`;
const SMALL_LIMITS = { ...TEST_SETTINGS, maxActiveKeysPerAccount: 3, maxKeysCreatedPerAccount: 5 };

let h: Harness;
beforeAll(async () => {
  h = await startHarness("accounts", SMALL_LIMITS);
});
afterAll(() => h.close());

const create = (account: string, label = "k") =>
  h.request(h.subjects.billing.createKey, { account_id: account, label }, createKeyReplySchema);
const list = (account: string) =>
  h.request(h.subjects.billing.listKeys, { account_id: account }, listKeysReplySchema);

describe("keys owned by a portal account", () => {
  it("refuses a key past the active limit, even when requested concurrently, and frees a place on revocation", async () => {
    const account = newAccount();
    const replies = await Promise.all(Array.from({ length: 6 }, () => create(account)));
    const created = replies.filter((reply) => reply.outcome === "created");
    expect(created).toHaveLength(3);
    expect(replies.filter((reply) => reply.outcome === "limit_reached")).toEqual(
      Array(3).fill({ outcome: "limit_reached", limit: "active", max: 3 }),
    );
    const first = created[0] as { id: string };
    expect(
      await h.request(
        h.subjects.billing.revokeKey,
        { id: first.id, account_id: account },
        revokeKeyReplySchema,
      ),
    ).toEqual({
      outcome: "revoked",
    });
    expect((await create(account)).outcome).toBe("created");
    expect((await list(account)).limits).toEqual({ active: 3, created: 4, max_active: 3, max_created: 5 });
  });

  it("refuses a key past the lifetime limit although fewer are active", async () => {
    const account = newAccount();
    for (let i = 0; i < 5; i++) {
      const reply = await create(account);
      if (reply.outcome !== "created") throw new Error("expected a key");
      await revoke(h, reply.id);
    }
    expect(await create(account)).toEqual({ outcome: "limit_reached", limit: "lifetime", max: 5 });
  });

  it("lists an account's keys newest first with balance, state and last use, and nobody else's", async () => {
    const [ACCOUNT, OTHER] = [newAccount(), newAccount()];
    const older = await createKey(h, { account_id: ACCOUNT, label: "older" });
    const newer = await createKey(h, { account_id: ACCOUNT, label: "newer" });
    await createKey(h, { account_id: OTHER, label: "theirs" });
    await debit(h, newer);
    const { keys } = await list(ACCOUNT);
    expect(keys.map((key) => key.label)).toEqual(["newer", "older"]);
    expect(keys[0]).toMatchObject({
      id: newer.id,
      credits_balance: 332,
      revoked: false,
      account_id: ACCOUNT,
    });
    expect(Date.parse(keys[0]?.last_used_at ?? "")).toBeGreaterThan(Date.now() - 60_000);
    expect(keys[1]).toMatchObject({ id: older.id, last_used_at: null });
  });

  it("answers not found for another account's key, whatever the command", async () => {
    const [ACCOUNT, OTHER] = [newAccount(), newAccount()];
    const mine = await createKey(h, { account_id: ACCOUNT });
    const asOther = { id: mine.id, account_id: OTHER };
    expect(await h.request(h.subjects.billing.showKey, asOther, showKeyReplySchema)).toEqual({
      found: false,
    });
    expect(await h.request(h.subjects.billing.revokeKey, asOther, revokeKeyReplySchema)).toEqual({
      outcome: "not_found",
    });
    expect(await h.request(h.subjects.billing.rotateKey, asOther, rotateKeyReplySchema)).toEqual({
      outcome: "not_found",
    });
    expect(
      await h.request(h.subjects.billing.keyUsage, { ...asOther, days: 1 }, keyUsageReplySchema),
    ).toEqual({ found: false });
    expect(await balanceOf(h, mine)).toBe(333);
  });

  it("refuses the portal's subjects any change that names no account, and scopes the rest to the account named", async () => {
    const operatorKey = await createKey(h, { label: "an operator's" });
    const ACCOUNT = newAccount();
    const accountKey = await createKey(h, { account_id: ACCOUNT });
    const billing = h.subjects.billing;
    const refusals = [
      h.request(billing.revokeAccountKey, { id: operatorKey.id }, revokeKeyReplySchema),
      h.request(billing.rotateAccountKey, { id: operatorKey.id }, rotateKeyReplySchema),
      h.request(billing.createAccountKey, { label: "no account" }, createKeyReplySchema),
      h.request(billing.createAccountKey, { account_id: ACCOUNT, credits: 1_000_000 }, createKeyReplySchema),
    ];
    for (const refusal of refusals) await expect(refusal).rejects.toThrow(/account_id|credits/);
    const asOther = { id: accountKey.id, account_id: newAccount() };
    expect(await h.request(billing.revokeAccountKey, asOther, revokeKeyReplySchema)).toEqual({
      outcome: "not_found",
    });
    // The lookup names the key's account, so the limits that count per account can find it.
    expect(await lookup(h, hashApiKey(operatorKey.key))).toMatchObject({
      found: true,
      key: { account_id: null },
    });
    expect(await lookup(h, hashApiKey(accountKey.key))).toMatchObject({
      found: true,
      key: { account_id: ACCOUNT },
    });
    const own = { id: accountKey.id, account_id: ACCOUNT };
    expect(await h.request(billing.revokeAccountKey, own, revokeKeyReplySchema)).toEqual({
      outcome: "revoked",
    });
  });

  it("lists keys by label for an operator", async () => {
    const label = `label-${newRequestId()}`;
    const a = await createKey(h, { label });
    const b = await createKey(h, { label, account_id: newAccount() });
    const reply = await h.request(h.subjects.billing.listKeys, { label }, listKeysReplySchema);
    expect(reply.keys.map((key) => key.id).sort()).toEqual([a.id, b.id].sort());
    expect(reply.limits).toBeUndefined();
  });
});

describe("rotation", () => {
  it("gives the same key a new secret: the old one is refused at once, balance and history are kept", async () => {
    const ACCOUNT = newAccount();
    const created = await createKey(h, { account_id: ACCOUNT });
    await debit(h, created);
    const { events, stop } = await watchKeyChanges(h);
    try {
      const rotated = await h.request(
        h.subjects.billing.rotateKey,
        { id: created.id, account_id: ACCOUNT },
        rotateKeyReplySchema,
      );
      if (rotated.outcome !== "rotated") throw new Error(`not rotated: ${rotated.outcome}`);
      expect(rotated.id).toBe(created.id);
      expect(rotated.key).not.toBe(created.key);
      await waitFor(() => events.includes(`${created.id} rotated`), "the key_changed event", 1_000);
      expect(await lookup(h, hashApiKey(created.key))).toEqual({ found: false });
      expect(await lookup(h, hashApiKey(rotated.key))).toMatchObject({
        found: true,
        key: { id: created.id },
      });
      expect(await debit(h, created)).toEqual({ outcome: "unknown_key" });
      const renewed = { id: created.id, key: rotated.key };
      expect(await debit(h, renewed)).toMatchObject({ outcome: "admitted", balance: 331 });
      expect(await balanceOf(h, renewed)).toBe(331);
      expect(await admit(h, created, { credits: 0 })).toEqual({ outcome: "unknown_key" });
      expect((await verify(h)).ok).toBe(true);
    } finally {
      stop();
    }
  });

  it("refuses to rotate a revoked key", async () => {
    const created = await createKey(h);
    await revoke(h, created.id);
    expect(await h.request(h.subjects.billing.rotateKey, { id: created.id }, rotateKeyReplySchema)).toEqual({
      outcome: "revoked",
    });
  });
});

describe("usage by day", () => {
  it("counts charged and refunded requests per operation and credits added, today last", async () => {
    const created = await createKey(h, { credits: 10 });
    await debit(h, created, newRequestId(), "listPosts");
    await debit(h, created, newRequestId(), "listPosts");
    const refunded = newRequestId();
    await debit(h, created, refunded, "getCommentTree");
    await topUp(h, created.id, 500);
    await publishRefund(h.nats, h.subjects, {
      key_id: created.id,
      request_id: refunded,
      reason: "upstream_unavailable",
    });
    const usage = async () => {
      const reply = await h.request(
        h.subjects.billing.keyUsage,
        { id: created.id, days: 7 },
        keyUsageReplySchema,
      );
      if (!reply.found) throw new Error("no usage");
      return reply.days;
    };
    await waitFor(
      async () => ((await usage()).at(-1)?.refunded.getCommentTree ?? 0) === 1,
      "the refund's count",
    );
    const days = await usage();
    expect(days).toHaveLength(7);
    expect(days.at(-1)).toEqual({
      date: new Date().toISOString().slice(0, 10),
      charged: { listPosts: 2, getCommentTree: 1 },
      refunded: { getCommentTree: 1 },
      credits_bought: 3_333,
      credits_granted: 10,
      paid_cents: 500,
    });
    expect(days.slice(0, 6).every((day) => Object.keys(day.charged).length === 0)).toBe(true);
  });
});
