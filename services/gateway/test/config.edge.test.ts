import { loadConfig } from "@rda/service-kit";
import { describe, expect, it } from "vitest";
import { gatewayConfigShape, gatewaySettingsFromEnv, loadGatewayConfig } from "../src/index.ts";

const load = (env: Record<string, string>) => loadConfig(gatewayConfigShape, env);

describe("the gateway's edge settings", () => {
  it("voids a pending debit 20 s after the adapter timeout unless PENDING_DEBIT_MS says otherwise", () => {
    expect(gatewaySettingsFromEnv({ ADAPTER_TIMEOUT_MS: "15000" }).pendingDebitMs).toBe(35_000);
    const set = gatewaySettingsFromEnv({ ADAPTER_TIMEOUT_MS: "15000", PENDING_DEBIT_MS: "18000" });
    expect(set.pendingDebitMs).toBe(18_000);
  });

  it("refuses at start a PENDING_DEBIT_MS that would void answers still being written", () => {
    expect(() => loadGatewayConfig({ ADAPTER_TIMEOUT_MS: "10000", PENDING_DEBIT_MS: "9000" })).toThrow(
      /PENDING_DEBIT_MS \(9000\) must exceed ADAPTER_TIMEOUT_MS \(10000\)/,
    );
  });

  it("refuses at start a PENDING_DEBIT_MS billing would refuse on every request", () => {
    expect(() => loadGatewayConfig({ PENDING_DEBIT_MS: "700000" })).toThrow(
      /PENDING_DEBIT_MS: must be at most 600000/,
    );
  });

  it("refuses at start an adapter timeout shorter than the adapters' upstream deadline", () => {
    expect(() => loadGatewayConfig({ ADAPTER_TIMEOUT_MS: "6000" })).toThrow(
      /UPSTREAM_DEADLINE_MS \(8000\) must be below ADAPTER_TIMEOUT_MS \(6000\)/,
    );
  });

  it("reads the failed-authentication limits, the command timeout and the trusted proxies, and names a bad one", () => {
    expect(
      load({
        FAILED_AUTH_BURST: "50",
        FAILED_AUTH_QPS: "2",
        REDIS_COMMAND_TIMEOUT_MS: "500",
        GATEWAY_TRUST_PROXY: "1",
      }),
    ).toMatchObject({
      FAILED_AUTH_BURST: 50,
      FAILED_AUTH_QPS: 2,
      REDIS_COMMAND_TIMEOUT_MS: 500,
      GATEWAY_TRUST_PROXY: 1,
    });
    expect(load({})).toMatchObject({ FAILED_AUTH_BURST: 20, FAILED_AUTH_QPS: 1, GATEWAY_TRUST_PROXY: false });
    expect(() => load({ FAILED_AUTH_BURST: "0" })).toThrow(/FAILED_AUTH_BURST/);
    expect(() => load({ GATEWAY_TRUST_PROXY: "everyone" })).toThrow(/GATEWAY_TRUST_PROXY/);
  });
});
