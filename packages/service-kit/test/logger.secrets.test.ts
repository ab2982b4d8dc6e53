import { describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";
import { capturingLogger } from "../src/testing/index.ts";

const KEY = `rdk_${"A1b2C3d4".repeat(5)}xyz`;

describe("logger", () => {
  it("redacts the headers that carry API keys", () => {
    const { logger, lines } = capturingLogger();
    logger.info(
      { req: { headers: { "x-api-key": KEY, authorization: `Bearer ${KEY}`, host: "api" } } },
      "request",
    );
    expect(lines()).not.toContain(KEY);
    expect(lines()).toContain('"host":"api"');
    expect(lines()).toContain("[redacted]");
  });

  it("masks a key that slips into a message or an unexpected field", () => {
    const { logger, lines } = capturingLogger();
    logger.warn({ detail: { note: `caller sent ${KEY}` } }, `bad key ${KEY}`);
    expect(lines()).not.toContain(KEY);
    expect(lines()).toContain("rdk_[redacted]");
  });

  it("opens no output of its own for a silent logger (no flush timer, no exit hook): tests make hundreds", () => {
    const hooks = process.listenerCount("exit");
    for (let i = 0; i < 10; i += 1) createLogger("quiet", { level: "silent" }).info("never written");
    expect(process.listenerCount("exit")).toBe(hooks);
  });
});
