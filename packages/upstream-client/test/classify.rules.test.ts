import { describe, expect, it } from "vitest";
import { classifyAnswer } from "../src/retry-policy.ts";

describe("classifyAnswer", () => {
  it("accepts a 200 JSON body with data and no error key", () => {
    expect(classifyAnswer(200, undefined, '{"data":[{"id":"a"}]}')).toMatchObject({
      kind: "ok",
      body: { data: [{ id: "a" }] },
    });
  });

  it("treats an error key on a 200 as a failure, never as data", () => {
    expect(classifyAnswer(200, undefined, '{"data":null,"error":"Under maintenance"}').kind).toBe(
      "unavailable",
    );
  });

  it("classifies the busy messages as busy whether the status is 200 or 422", () => {
    expect(
      classifyAnswer(422, undefined, '{"data":null,"error":"Timeout. Maybe slow down a bit"}').kind,
    ).toBe("busy");
    expect(classifyAnswer(200, undefined, '{"data":null,"error":"Slow down a little"}').kind).toBe("busy");
  });

  it("classifies a 400 with an error body as bad_request", () => {
    expect(classifyAnswer(400, undefined, '{"data":null,"error":"not supported"}').kind).toBe("bad_request");
  });

  it("classifies non-JSON bodies (Cloudflare 52x pages, garbage on 200) as transient", () => {
    expect(classifyAnswer(522, undefined, "<html>Connection timed out</html>").kind).toBe("transient");
    expect(classifyAnswer(200, undefined, '{"data":[').kind).toBe("transient");
  });

  it("classifies a 403 page, or a 4xx page saying the client is blocked, as blocked and says what it was", () => {
    const page = "<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head></html>";
    expect(classifyAnswer(403, undefined, page)).toEqual({
      kind: "blocked",
      reason: 'HTTP 403 with an HTML page: "Attention Required! | Cloudflare"',
    });
    expect(classifyAnswer(403, undefined, "error code: 1020").kind).toBe("blocked");
    expect(classifyAnswer(409, undefined, "<html><h1>Sorry, you have been blocked</h1></html>").kind).toBe(
      "blocked",
    );
  });

  it("classifies any other 4xx page as final, not retried", () => {
    expect(classifyAnswer(404, undefined, "<html><title>Not Found</title></html>").kind).toBe("unavailable");
  });

  it("classifies a 5xx JSON error as transient", () => {
    expect(classifyAnswer(503, undefined, '{"error":"overloaded"}').kind).toBe("transient");
  });

  it("carries the seconds until the window turns on a 429, when they are known", () => {
    expect(classifyAnswer(429, 12, "")).toEqual({ kind: "rate_limited", resetSeconds: 12 });
    expect(classifyAnswer(429, undefined, "")).toEqual({ kind: "rate_limited", resetSeconds: undefined });
  });

  it("rejects a JSON body without a data key", () => {
    expect(classifyAnswer(200, undefined, "[1,2]").kind).toBe("unavailable");
  });
});
