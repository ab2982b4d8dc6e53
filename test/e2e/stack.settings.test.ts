/**
 * The in-process stack runs production's settings: each service resolves them from one environment
 * with the same code its main.ts runs, and the stack chooses only the few values named below.
 */
import { DEADLINE_DEFAULTS } from "@rda/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingSettingsFromEnv } from "../../services/billing/src/index.ts";
import { gatewaySettingsFromEnv } from "../../services/gateway/src/index.ts";
import { type Stack, startStack } from "../support/stack.ts";

/** What the stack sets on purpose: fast upstream failures, its own addresses. */
const BILLING_CHOICES = ["pendingSweepMs", "stripeWebhookSecret"];
const GATEWAY_CHOICES = [
  "adapterTimeoutMs",
  "pendingDebitMs",
  "topUpUrl",
  "mcpUrl",
  "portalUrl",
  "publicUrl",
  "oauthJwksUrl",
  "internalSecret",
  // The secret the stack's portal signs its gateway calls with (PORTAL_GATEWAY_SECRET).
  "portalSecret",
];

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

function unchosen(settings: object, choices: string[]) {
  return Object.fromEntries(Object.entries(settings).filter(([name]) => !choices.includes(name)));
}

describe("the test stack's settings", () => {
  it("are production's defaults for every setting the stack does not choose", () => {
    expect(unchosen(stack.settings.billing, BILLING_CHOICES)).toEqual(
      unchosen(billingSettingsFromEnv({}), BILLING_CHOICES),
    );
    expect(unchosen(stack.settings.gateway, GATEWAY_CHOICES)).toEqual(
      unchosen(gatewaySettingsFromEnv({}), GATEWAY_CHOICES),
    );
  });

  it("stall on Redis the way production does: billing gives up on its store before the gateway gives up on billing", () => {
    expect(stack.settings.billing.storeTimeoutMs).toBe(DEADLINE_DEFAULTS.redisCommandTimeoutMs);
    expect(stack.settings.gateway.billingTimeoutMs).toBe(DEADLINE_DEFAULTS.billingTimeoutMs);
    expect(stack.settings.billing.storeTimeoutMs).toBeLessThan(stack.settings.gateway.billingTimeoutMs);
  });

  it("are the ones the services run with: the chosen adapter wait is what the gateway sends as the debit deadline", () => {
    expect(stack.settings.gateway.pendingDebitMs).toBe(
      Number(stack.environment.ADAPTER_TIMEOUT_MS) + DEADLINE_DEFAULTS.pendingDebitMarginMs,
    );
  });
});
