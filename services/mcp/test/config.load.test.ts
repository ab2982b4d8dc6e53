import { ConfigError } from "@rda/service-kit";
import { describe, expect, it } from "vitest";
import { loadMcpConfig } from "../src/config.ts";

describe("loadMcpConfig", () => {
  it("uses the documented defaults when nothing is set", () => {
    expect(loadMcpConfig({})).toEqual({
      port: 8090,
      host: "127.0.0.1",
      gatewayUrl: "http://127.0.0.1:8080",
      gatewayTimeoutMs: 15_000,
      logLevel: "info",
    });
  });

  it("binds MCP_HOST over HOST when both are set", () => {
    expect(loadMcpConfig({ HOST: "10.0.0.1", MCP_HOST: "0.0.0.0" }).host).toBe("0.0.0.0");
    expect(loadMcpConfig({ HOST: "10.0.0.1" }).host).toBe("10.0.0.1");
  });

  it("fails at start, naming the variable, when GATEWAY_URL or MCP_PORT is not valid", () => {
    expect(() => loadMcpConfig({ GATEWAY_URL: "ftp://x" })).toThrow(ConfigError);
    expect(() => loadMcpConfig({ GATEWAY_URL: "ftp://x" })).toThrow(/GATEWAY_URL/);
    expect(() => loadMcpConfig({ MCP_PORT: "99999" })).toThrow(/MCP_PORT/);
  });
});
