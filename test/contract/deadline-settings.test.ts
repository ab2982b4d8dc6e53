/**
 * Deadlines two processes must agree on (packages/contracts/src/bounds.ts): each service's settings
 * loader, the one its `main` runs first, refuses a combination that breaks their order with one
 * sentence naming both variables. (test/stack/config-errors.test.ts shows each process stopping on
 * what its loader refuses.)
 */

import { describe, expect, it } from "vitest";
import { loadAdapterConfig } from "../../packages/adapter-kit/src/adapter-main.ts";
import { loadBillingConfig } from "../../services/billing/src/settings.ts";
import { loadExportsConfig } from "../../services/exports/src/serve.ts";
import { loadGatewayConfig } from "../../services/gateway/src/wiring/config.ts";
import { loadMcpConfig } from "../../services/mcp/src/config.ts";

const loaders: Record<string, (env: Record<string, string>) => unknown> = {
  gateway: loadGatewayConfig,
  "adapter-posts": (env) => loadAdapterConfig({ health: 9102, metrics: 9202 }, env),
  exports: loadExportsConfig,
  mcp: loadMcpConfig,
  billing: loadBillingConfig,
};

const COMBINATIONS = [
  ["gateway", { PENDING_DEBIT_MS: "700000" }, /PENDING_DEBIT_MS: must be at most 600000/],
  [
    "gateway",
    { ADAPTER_TIMEOUT_MS: "5000", PENDING_DEBIT_MS: "5000" },
    /PENDING_DEBIT_MS \(5000\) must exceed ADAPTER_TIMEOUT_MS \(5000\)/,
  ],
  [
    "gateway",
    { UPSTREAM_DEADLINE_MS: "40000" },
    /UPSTREAM_DEADLINE_MS \(40000\) must be below ADAPTER_TIMEOUT_MS \(35000\)/,
  ],
  [
    "adapter-posts",
    { UPSTREAM_DEADLINE_MS: "40000" },
    /UPSTREAM_DEADLINE_MS \(40000\) must be below ADAPTER_TIMEOUT_MS \(35000\)/,
  ],
  [
    "exports",
    { UPSTREAM_DEADLINE_MS: "40000" },
    /UPSTREAM_DEADLINE_MS \(40000\) must be below ADAPTER_TIMEOUT_MS \(35000\)/,
  ],
  [
    "exports",
    { ADAPTER_TIMEOUT_MS: "20000" },
    /UPSTREAM_DEADLINE_MS \(30000\) must be below ADAPTER_TIMEOUT_MS \(20000\)/,
  ],
  [
    "mcp",
    { ADAPTER_TIMEOUT_MS: "50000" },
    /GATEWAY_TIMEOUT_MS \(40000\) must exceed ADAPTER_TIMEOUT_MS \(50000\)/,
  ],
  [
    "billing",
    { REDIS_COMMAND_TIMEOUT_MS: "2500" },
    /REDIS_COMMAND_TIMEOUT_MS \(2500\) must be below BILLING_TIMEOUT_MS \(2000\)/,
  ],
] as const;

describe("settings two processes must agree on", () => {
  it.each(COMBINATIONS)("%s refuses %o with one sentence naming both", (service, values, said) => {
    expect(() => loaders[service]!(values)).toThrow(said);
  });

  it.each(Object.keys(loaders))("%s takes its defaults as they are", (service) => {
    expect(() => loaders[service]!({})).not.toThrow();
  });
});
