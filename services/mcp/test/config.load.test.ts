import { ConfigError } from "@rda/service-kit";
import { describe, expect, it } from "vitest";
import { loadMcpConfig } from "../src/config.ts";

describe("loadMcpConfig", () => {
  it("uses the documented defaults when nothing is set", () => {
    expect(loadMcpConfig({})).toEqual({
      port: 8090,
      host: "127.0.0.1",
      gatewayUrl: "http://127.0.0.1:8081",
      gatewayTimeoutMs: 40_000,
      allowedOrigins: [],
      bodyTimeoutMs: 10_000,
      resultBudgetBytes: 40_000,
      logLevel: "info",
    });
  });

  it("binds MCP_HOST over HOST when both are set", () => {
    expect(loadMcpConfig({ HOST: "10.0.0.1", MCP_HOST: "0.0.0.0" }).host).toBe("0.0.0.0");
    expect(loadMcpConfig({ HOST: "10.0.0.1" }).host).toBe("10.0.0.1");
  });

  it("reads MCP_ALLOWED_ORIGINS as a comma-separated list of origins", () => {
    const config = loadMcpConfig({ MCP_ALLOWED_ORIGINS: "https://app.example.com, http://localhost:6274" });
    expect(config.allowedOrigins).toEqual(["https://app.example.com", "http://localhost:6274"]);
  });

  it("fails at start, naming the variable, when an allowed origin is not an origin", () => {
    expect(() => loadMcpConfig({ MCP_ALLOWED_ORIGINS: "https://app.example.com/path" })).toThrow(
      /MCP_ALLOWED_ORIGINS/,
    );
    expect(() => loadMcpConfig({ MCP_ALLOWED_ORIGINS: "*" })).toThrow(/MCP_ALLOWED_ORIGINS/);
  });

  it("fails at start, naming the variable, when the result budget is too small to say anything", () => {
    expect(() => loadMcpConfig({ MCP_RESULT_BUDGET_BYTES: "100" })).toThrow(/MCP_RESULT_BUDGET_BYTES/);
  });

  it("fails at start, naming the variable, when GATEWAY_URL or MCP_PORT is not valid", () => {
    expect(() => loadMcpConfig({ GATEWAY_URL: "ftp://x" })).toThrow(ConfigError);
    expect(() => loadMcpConfig({ GATEWAY_URL: "ftp://x" })).toThrow(/GATEWAY_URL/);
    expect(() => loadMcpConfig({ MCP_PORT: "99999" })).toThrow(/MCP_PORT/);
  });
});
