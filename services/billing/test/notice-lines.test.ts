/**
 * The lines billing tells the portal about (endpoints.ts, `crossingsOf`): a key's low-balance threshold (the
 * account's choice, else a tenth of its last top-up, else 100), crossed by exactly one of many
 * concurrent debits on two replicas, and 80 % and 100 % of its monthly cap, each crossed once,
 * whether requests or work debits (export pages, monitor webhook batches) spend the key. A refusal
 * for credits is answered with why; telling the pause is the caller's.
 */
import {
  MONITOR_PULL_OPERATION,
  type NoticeEvent,
  noticeEventSchema,
  setLowBalanceThresholdReplySchema,
  setSpendCapReplySchema,
  type WorkDebitReply,
} from "@rda/contracts";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness, TEST_SETTINGS } from "./harness.ts";
import { admit, createKey, debitWork as debitWorkOf, topUp } from "./ops.ts";

let h: Harness;
const events: NoticeEvent[] = [];
beforeAll(async () => {
  h = await startHarness("notice-lines", {
    ...TEST_SETTINGS,
    freeCredits: 333,
    defaultRateLimit: { qps: 100_000, burst: 1_000_000 },
  });
  await h.start();
  h.nats.subscribe(h.subjects.billing.notice, {
    callback: (_error, message) => {
      events.push(noticeEventSchema.parse(message.json()));
    },
  });
  await h.nats.flush();
});
afterAll(async () => h.close());

const debitWork = (keyId: string, workId: string, operation?: "exportPage" | "monitorWebhookBatch") =>
  debitWorkOf(h, keyId, workId, operation);

const setThreshold = (account_id: string, low_balance_threshold: number | null) =>
  h.request(
    h.subjects.billing.setLowBalanceThreshold,
    { account_id, low_balance_threshold },
    setLowBalanceThresholdReplySchema,
  );
const lineOf = async (key: { id: string; key: string }) => {
  const reply = await admit(h, key, { credits: 0 });
  return reply.outcome === "admitted" ? reply.low_balance_threshold : undefined;
};

describe("the low-balance line", () => {
  it("is 100 before any top-up, a tenth of the last top-up after one, and the account's choice once made, also for its later keys", async () => {
    const account = "acct_noticelines00001";
    const key = await createKey(h, { account_id: account });
    expect(await lineOf(key)).toBe(100);
    await topUp(h, key.id, 2_500);
    expect(await lineOf(key)).toBe(1_923);
    expect(await setThreshold(account, 250)).toEqual({ keys_updated: 1 });
    expect(await lineOf(key)).toBe(250);
    expect(await lineOf(await createKey(h, { account_id: account }))).toBe(250);
    await setThreshold(account, null);
    expect(await lineOf(key)).toBe(1_923);
  });

  it("is crossed by exactly one of 300 concurrent debits, and each cap mark once", async () => {
    const account = "acct_noticelines00002";
    const key = await createKey(h, { account_id: account });
    await setThreshold(account, 200);
    await h.request(
      h.subjects.billing.setAccountSpendCap,
      { id: key.id, account_id: account, monthly_cap: 250 },
      setSpendCapReplySchema,
    );
    const replies = await Promise.all(Array.from({ length: 300 }, () => admit(h, key)));
    expect(replies.filter((reply) => reply.outcome === "admitted")).toHaveLength(250);
    const ofKey = () => events.filter((event) => event.key_id === key.id);
    await waitFor(() => ofKey().length >= 3 || undefined, "three notice events");
    const mine = ofKey();
    expect(mine.map((event) => event.kind).sort()).toEqual(["balance_low", "spend_cap_100", "spend_cap_80"]);
    expect(mine.find((event) => event.kind === "balance_low")).toMatchObject({
      account_id: account,
      threshold: 200,
      balance: 199,
    });
    expect(mine.find((event) => event.kind === "spend_cap_80")).toMatchObject({
      month_spend: { spent: 200, cap: 250 },
    });
  });

  it("is crossed again after a top-up lifts the balance over it, as a new crossing; a debit that stays under it crosses nothing", async () => {
    const account = "acct_noticelines00003";
    const key = await createKey(h, { account_id: account });
    await setThreshold(account, 3_400);
    const lows = () => events.filter((event) => event.key_id === key.id && event.kind === "balance_low");
    // Down to just under the line, 100 credits (an admission's most) at a time.
    const spendUnder = async (balance: number) => {
      while (balance >= 3_400) {
        const reply = await admit(h, key, { credits: Math.min(100, balance - 3_396) });
        if (reply.outcome !== "admitted") throw new Error(`admission: ${reply.outcome}`);
        balance = reply.balance;
      }
    };
    const first = await topUp(h, key.id, 500);
    if (first.outcome !== "ok") throw new Error(`top-up: ${first.outcome}`);
    await spendUnder(first.credits_balance);
    await waitFor(() => lows().length >= 1 || undefined, "the first crossing");
    expect(await admit(h, key, { credits: 3 })).toMatchObject({ outcome: "admitted", balance: 3_393 });
    const second = await topUp(h, key.id, 500);
    if (second.outcome !== "ok") throw new Error(`top-up: ${second.outcome}`);
    await spendUnder(second.credits_balance);
    await waitFor(() => lows().length >= 2 || undefined, "the second crossing");
    const [before, after] = lows();
    expect(before!.crossing).not.toBe(after!.crossing);
    expect(after).toMatchObject({ balance: 3_396, threshold: 3_400 });
    expect(lows()).toHaveLength(2);
  });
});

describe("a work debit refused for credits", () => {
  it("answers why, with the account to tell and the pause's round, and publishes no pause itself", async () => {
    const account = "acct_noticelines00004";
    const key = await createKey(h, { account_id: account });
    for (const credits of [100, 100, 100, 32]) await admit(h, key, { credits });
    expect(await debitWork(key.id, "exp_noticelines.p0.a0")).toMatchObject({
      outcome: "debited",
      balance: 0,
    });
    expect(await debitWork(key.id, "exp_noticelines.p1.a0")).toEqual({
      outcome: "insufficient",
      balance: 0,
      account_id: account,
      low_balance_round: 0,
    });
    // A request refused for credits is no pause either: pausing work is its caller's to tell.
    expect((await admit(h, key, { operation: MONITOR_PULL_OPERATION })).outcome).toBe("insufficient");
    // The debit that emptied the key crossed its low-balance line: once that event is here, the
    // refusals' would be too.
    await waitFor(
      () => events.some((event) => event.key_id === key.id && event.kind === "balance_low") || undefined,
      "the low-balance crossing",
    );
    await h.nats.flush();
    expect(events.filter((event) => event.key_id === key.id && event.kind === "spending_paused")).toEqual([]);
  });
});

describe("export pages and monitor batches", () => {
  it("cross the low-balance line and 80 % and 100 % of the cap once each, however many debit at once", async () => {
    const account = "acct_noticelines00005";
    const key = await createKey(h, { account_id: account });
    await setThreshold(account, 310);
    await h.request(
      h.subjects.billing.setAccountSpendCap,
      { id: key.id, account_id: account, monthly_cap: 40 },
      setSpendCapReplySchema,
    );
    const job = `exp_${"cd".repeat(12)}`;
    // 30 pages and 30 batches race for the 40 credits the cap allows; the balance starts at 333.
    const replies: WorkDebitReply[] = await Promise.all([
      ...Array.from({ length: 30 }, (_, page) => debitWork(key.id, `${job}.p${page}.a0`)),
      ...Array.from({ length: 30 }, (_, round) =>
        debitWork(key.id, `msg_mon_noticelines_7.r${round}`, "monitorWebhookBatch"),
      ),
    ]);
    expect(replies.filter((reply) => reply.outcome === "debited")).toHaveLength(40);
    expect(replies.filter((reply) => reply.outcome === "spend_cap_reached")).toHaveLength(20);
    const ofKey = () => events.filter((event) => event.key_id === key.id);
    await waitFor(() => ofKey().length >= 3 || undefined, "three notice events");
    // A retried page (the same debit id) charges and crosses nothing again.
    expect(await debitWork(key.id, `${job}.p0.a0`)).toMatchObject({
      outcome: expect.stringMatching(/^already_debited$|^spend_cap_reached$/),
    });
    await h.nats.flush();
    const mine = ofKey();
    expect(mine.map((event) => event.kind).sort()).toEqual(["balance_low", "spend_cap_100", "spend_cap_80"]);
    expect(mine.find((event) => event.kind === "balance_low")).toMatchObject({
      account_id: account,
      threshold: 310,
      balance: 309,
    });
    expect(mine.find((event) => event.kind === "spend_cap_80")).toMatchObject({
      month_spend: { spent: 32, cap: 40 },
    });
    expect(mine.find((event) => event.kind === "spend_cap_100")).toMatchObject({
      month_spend: { spent: 40, cap: 40 },
      balance: 293,
    });
  });
});
