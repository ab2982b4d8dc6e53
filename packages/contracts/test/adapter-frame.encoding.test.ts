import { describe, expect, it } from "vitest";
import { decodeAdapterReply, encodeAdapterReply } from "../src/index.ts";

describe("adapter reply frame", () => {
  it("round-trips metadata and data bytes, including data containing escaped newlines", () => {
    const data = JSON.stringify([{ body: "line one\nline two", n: 1 }]);
    const decoded = decodeAdapterReply(
      encodeAdapterReply({ outcome: "ok", cursor: 5, has_more: true }, data),
    );
    expect(decoded.meta).toEqual({ outcome: "ok", cursor: 5, has_more: true });
    expect(JSON.parse(new TextDecoder().decode(decoded.data))).toEqual([
      { body: "line one\nline two", n: 1 },
    ]);
  });

  it("carries failures without data", () => {
    const decoded = decodeAdapterReply(
      encodeAdapterReply({ outcome: "unavailable", message: "upstream 503" }),
    );
    expect(decoded).toEqual({ meta: { outcome: "unavailable", message: "upstream 503" } });
  });

  it("throws on a malformed frame so a broken adapter is never billed as success", () => {
    expect(() => decodeAdapterReply(new TextEncoder().encode('{"outcome":"ok"}'))).toThrow(/no data/);
    expect(() => decodeAdapterReply(new TextEncoder().encode("not json\n[]"))).toThrow();
    expect(() => decodeAdapterReply(new TextEncoder().encode('{"outcome":"weird"}\n[]'))).toThrow();
  });
});
