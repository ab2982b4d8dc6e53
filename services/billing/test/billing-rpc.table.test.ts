/**
 * BILLING_RPC is the one pairing of billing's subjects with their schemas: billing serves every entry,
 * and every request-reply subject of billing has an entry.
 */
import { BILLING_RPC, type BillingRpcName, buildSubjects } from "@rda/contracts";
import { requestRaw } from "@rda/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.ts";

/** Billing subjects that are not request-reply calls: two events, and the refund stream. */
const NOT_CALLS = ["keyChanged", "notice", "refunds"];

let h: Harness;
beforeAll(async () => {
  h = await startHarness("rpc-table");
});
afterAll(() => h.close());

describe("BILLING_RPC", () => {
  it("has an entry for every request-reply subject of billing, and no other", () => {
    const calls = Object.keys(buildSubjects("").billing).filter((name) => !NOT_CALLS.includes(name));
    expect(Object.keys(BILLING_RPC).sort()).toEqual(calls.sort());
  });

  it.each(Object.keys(BILLING_RPC) as BillingRpcName[])("%s is served by billing", async (name) => {
    const answer = await requestRaw(h.nats, h.subjects.billing[name], "{}", 5_000);
    // An empty request is refused by most schemas (a service error 400) and accepted by some: either
    // way billing answered on the entry's subject.
    if (!answer.ok) expect(answer.error).toMatchObject({ kind: "service_error", code: 400 });
  });
});
