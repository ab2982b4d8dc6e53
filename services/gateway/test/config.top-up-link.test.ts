import { loadConfig } from "@rda/service-kit";
import { describe, expect, it } from "vitest";
import { gatewayConfigShape, topUpUrlOf } from "../src/index.ts";

const topUpUrlWith = (env: Record<string, string>) => topUpUrlOf(loadConfig(gatewayConfigShape, env));

describe("the top-up link of 402 answers", () => {
  it("is the local portal's billing page when nothing is set", () => {
    expect(topUpUrlWith({})).toBe("http://127.0.0.1:8060/billing");
  });

  it("follows PORTAL_URL to the public portal's billing page", () => {
    expect(topUpUrlWith({ PORTAL_URL: "https://portal.example.com/" })).toBe(
      "https://portal.example.com/billing",
    );
  });

  it("is TOPUP_URL whenever it is set", () => {
    const env = { PORTAL_URL: "https://portal.example.com", TOPUP_URL: "https://pay.example.com/topup" };
    expect(topUpUrlWith(env)).toBe("https://pay.example.com/topup");
  });
});
