/**
 * Every operation id the product knows (OPERATIONS' ids and their MCP tools' names), and the shapes a
 * new one may take (letters, digits, '_'), goes through a debit's whole life: admission, then
 * settlement, refund or void. Each path reads the debit record back through its one codec, so a
 * record it could not read would show as a refused admission, a refund of the wrong amount, or usage
 * counted under the wrong name.
 */
import { keyUsageReplySchema, OPERATIONS, refundReplySchema, settleReplySchema } from "@rda/contracts";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness, TEST_SETTINGS } from "./harness.ts";
import { admit, balanceOf, createKey, newRequestId, verify } from "./ops.ts";

const OPERATION_IDS = [
  ...Object.keys(OPERATIONS),
  ...Object.values(OPERATIONS).map((operation) => operation.mcpTool),
  "export_page_2",
  "x",
];

let h: Harness;
beforeAll(async () => {
  h = await startHarness("debit-record", { ...TEST_SETTINGS, pendingSweepMs: 100 });
});
afterAll(() => h.close());

async function usageToday(keyId: string) {
  const reply = await h.request(h.subjects.billing.keyUsage, { id: keyId, days: 1 }, keyUsageReplySchema);
  if (!reply.found) throw new Error(`no usage for ${keyId}`);
  const [today] = reply.days;
  return { charged: today?.charged, refunded: today?.refunded };
}

describe.each(OPERATION_IDS)("a debit of %s", (operation) => {
  it("is admitted for its credits, settled once, and counted as charged", async () => {
    const key = await createKey(h, { credits: 10 });
    const requestId = newRequestId();
    expect(await admit(h, key, { requestId, operation, credits: 3 })).toMatchObject({
      outcome: "admitted",
      balance: 7,
    });
    const debits = [{ key_id: key.id, request_id: requestId }];
    expect(await h.request(h.subjects.billing.settle, { debits }, settleReplySchema)).toEqual({
      settled: 1,
      ignored: 0,
      ends: ["settled"],
    });
    expect(await h.request(h.subjects.billing.settle, { debits }, settleReplySchema)).toEqual({
      settled: 0,
      ignored: 1,
      ends: ["already_settled"],
    });
    expect(await balanceOf(h, key)).toBe(7);
    expect(await usageToday(key.id)).toEqual({ charged: { [operation]: 1 }, refunded: {} });
  });

  it("is refunded in full once, counted as refunded under its own name", async () => {
    const key = await createKey(h, { credits: 10 });
    const requestId = newRequestId();
    await admit(h, key, { requestId, operation, credits: 3 });
    const refund = { key_id: key.id, request_id: requestId, reason: "upstream_unavailable" };
    expect(await h.request(h.subjects.billing.refund, refund, refundReplySchema)).toEqual({
      outcome: "refunded",
      balance: 10,
    });
    expect(await h.request(h.subjects.billing.refund, refund, refundReplySchema)).toEqual({
      outcome: "already_refunded",
      balance: 10,
    });
    expect(await usageToday(key.id)).toEqual({ charged: { [operation]: 1 }, refunded: { [operation]: 1 } });
  });

  it("is voided in full once its deadline passes, and can then be neither settled nor refunded", async () => {
    const key = await createKey(h, { credits: 10 });
    const requestId = newRequestId();
    await admit(h, key, { requestId, operation, credits: 3, pendingMs: 1_000 });
    await waitFor(async () => (await balanceOf(h, key)) === 10, "the debit to be voided", 10_000);
    const debits = [{ key_id: key.id, request_id: requestId }];
    expect(await h.request(h.subjects.billing.settle, { debits }, settleReplySchema)).toEqual({
      settled: 0,
      ignored: 1,
      ends: ["voided"],
    });
    const refund = { key_id: key.id, request_id: requestId, reason: "upstream_unavailable" };
    expect(await h.request(h.subjects.billing.refund, refund, refundReplySchema)).toEqual({
      outcome: "voided",
      balance: 10,
    });
    expect(await usageToday(key.id)).toEqual({ charged: { [operation]: 1 }, refunded: { [operation]: 1 } });
    expect(await balanceOf(h, key)).toBe(10);
  });
});

describe("the ledger after every operation's debits", () => {
  it("verifies exactly", async () => {
    expect((await verify(h)).ok).toBe(true);
  });
});
