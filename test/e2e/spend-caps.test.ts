/**
 * A key's monthly spend cap over the whole stack (docs/api.md#spend-caps): with two gateway replicas
 * sharing one billing, 1,000 concurrent data requests under a 50-credit cap are served exactly 50
 * times; the rest are 402 with the cap, the reset and the portal link, and cost nothing. The account
 * endpoint and MCP's check_credits show the cap and the month's spend, and a tool call past the cap
 * tells the agent why.
 */
import {
  calendarMonthOf,
  monthResetsAt,
  setSpendCapReplySchema,
  verifyLedgerReplySchema,
} from "@rda/contracts";
import { requestJson } from "@rda/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpClient, firstText } from "../../services/mcp/test/support/mcp-client.ts";
import { expectErrorBody, getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let replicaUrl: string;
beforeAll(async () => {
  stack = await startStack();
  replicaUrl = (await stack.startGateway()).url;
});
afterAll(async () => stack.stop());

async function setCap(id: string, monthlyCap: number | null) {
  const subject = stack.subjects.billing.setSpendCap;
  const reply = await requestJson(
    stack.nats,
    subject,
    { id, monthly_cap: monthlyCap },
    setSpendCapReplySchema,
    5_000,
  );
  if (!reply.ok || reply.value.outcome !== "set") throw new Error(`cannot cap ${id}`);
}

async function ledgerIsClean(): Promise<boolean> {
  const subject = stack.subjects.billing.verifyLedger;
  const reply = await requestJson(stack.nats, subject, {}, verifyLedgerReplySchema, 30_000);
  return reply.ok && reply.value.ok;
}

describe("a monthly spend cap", () => {
  it("serves exactly 50 of 1,000 concurrent requests over two gateways under a 50-credit cap; the rest are 402 and uncharged", async () => {
    const key = await stack.createKey({ credits: 2_000, qps: 100_000, burst: 1_000_000 });
    await setCap(key.id, 50);
    const answers = await Promise.all(
      Array.from({ length: 1_000 }, (_, index) =>
        getJson(
          `${index % 2 === 0 ? stack.gatewayUrl : replicaUrl}/v1/subreddits/search?q=a`,
          withKey(key.key),
        ),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(50);
    expect(statuses.filter((status) => status === 402)).toHaveLength(950);
    const refusal = answers.find((answer) => answer.status === 402)!;
    expectErrorBody(refusal.body);
    const month = calendarMonthOf(Date.now());
    const reset = monthResetsAt(month).replace(".000Z", "Z");
    const error = String(refusal.body.error);
    expect(error).toContain(
      `this key's monthly spend cap is reached: ${key.id} spent 50 of its 50 credits for ${month} (UTC); the cap resets at ${reset}; change the cap at http://127.0.0.1:`,
    );
    expect(error).toMatch(/\/keys$/);
    expect(await stack.balanceOf(key.id)).toBe(1_950);
    expect(await ledgerIsClean()).toBe(true);

    const account = await getJson(`${replicaUrl}/v1/account`, withKey(key.key));
    expect(account.status).toBe(200);
    expect(account.body.data).toEqual({
      credits_balance: 1_950,
      rate_limit: { qps: 100_000, burst: 1_000_000 },
      low_balance_threshold: 100,
      spend: { month, credits_spent: 50, monthly_cap: 50, resets_at: monthResetsAt(month) },
    });
  });

  it("shows in MCP's check_credits, and a tool call past it tells the agent the cap, not an empty balance", async () => {
    const key = await stack.createKey({ credits: 100 });
    await setCap(key.id, 1);
    const agent = await connectMcpClient(`${stack.gatewayUrl}/mcp`, key.key);
    try {
      const first = await agent.callTool({ name: "search_subreddits", arguments: { q: "a" } });
      expect(first.isError).toBeFalsy();
      const refused = await agent.callTool({ name: "search_subreddits", arguments: { q: "a" } });
      expect(refused.isError).toBe(true);
      expect(firstText(refused)).toMatch(
        /^This API key's monthly spend cap is used up \(spend_cap_reached\): .*Nothing was charged/,
      );
      const credits = await agent.callTool({ name: "check_credits", arguments: {} });
      expect(credits.structuredContent).toMatchObject({
        data: { credits_balance: 99, spend: { credits_spent: 1, monthly_cap: 1 } },
      });
      expect(firstText(credits)).toContain("Monthly spend cap: 1 of 1 credits spent");
    } finally {
      await agent.close();
    }
    await setCap(key.id, null);
    const account = await getJson(`${stack.gatewayUrl}/v1/account`, withKey(key.key));
    expect((account.body.data as { spend: unknown }).spend).toMatchObject({
      credits_spent: 1,
      monthly_cap: null,
    });
  });
});
