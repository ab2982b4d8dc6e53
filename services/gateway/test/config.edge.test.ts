import { loadConfig } from "@rda/service-kit";
import { describe, expect, it } from "vitest";
import { gatewayConfigShape, gatewaySettingsFromEnv, loadGatewayConfig } from "../src/index.ts";

const load = (env: Record<string, string>) => loadConfig(gatewayConfigShape, env);

describe("the gateway's edge settings", () => {
  const short = { ADAPTER_TIMEOUT_MS: "5000", UPSTREAM_DEADLINE_MS: "4000" };

  it("voids a pending debit 20 s after the adapter timeout unless PENDING_DEBIT_MS says otherwise", () => {
    expect(gatewaySettingsFromEnv(short).pendingDebitMs).toBe(25_000);
    expect(gatewaySettingsFromEnv({ ...short, PENDING_DEBIT_MS: "8000" }).pendingDebitMs).toBe(8_000);
    // The defaults agree with each other: heavy upstream calls, then the wait, then the debit's life.
    expect(gatewaySettingsFromEnv({}).pendingDebitMs).toBe(55_000);
  });

  it("refuses at start a PENDING_DEBIT_MS that would void answers still being written", () => {
    expect(() => loadGatewayConfig({ ...short, PENDING_DEBIT_MS: "5000" })).toThrow(
      /PENDING_DEBIT_MS \(5000\) must exceed ADAPTER_TIMEOUT_MS \(5000\)/,
    );
  });

  it("refuses at start a PENDING_DEBIT_MS billing would refuse on every request", () => {
    expect(() => loadGatewayConfig({ PENDING_DEBIT_MS: "700000" })).toThrow(
      /PENDING_DEBIT_MS: must be at most 600000/,
    );
  });

  it("refuses at start a PORTAL_GATEWAY_SECRET that is GATEWAY_INTERNAL_SECRET, and takes a distinct one", () => {
    const secret = "s".repeat(40);
    expect(() =>
      loadGatewayConfig({ GATEWAY_INTERNAL_SECRET: secret, PORTAL_GATEWAY_SECRET: secret }),
    ).toThrow(/PORTAL_GATEWAY_SECRET: must differ from GATEWAY_INTERNAL_SECRET/);
    expect(() => loadGatewayConfig({ PORTAL_GATEWAY_SECRET: "short" })).toThrow(/at least 32 characters/);
    const settings = gatewaySettingsFromEnv({
      GATEWAY_INTERNAL_SECRET: secret,
      PORTAL_GATEWAY_SECRET: "p".repeat(40),
    });
    expect(settings.portalSecret).toBe("p".repeat(40));
    expect(gatewaySettingsFromEnv({}).portalSecret).toBeUndefined();
  });

  it("refuses at start an ADAPTER_TIMEOUT_MS the adapters' upstream deadline does not fit in", () => {
    expect(() => loadGatewayConfig({ ADAPTER_TIMEOUT_MS: "10000" })).toThrow(
      /UPSTREAM_DEADLINE_MS \(30000\) must be below ADAPTER_TIMEOUT_MS \(10000\)/,
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
