import { describe, expect, it } from "vitest";
import { decodeAdapterReply, encodeAdapterReply } from "../src/index.ts";

function expectDecoded(frame: Uint8Array) {
  const decoded = decodeAdapterReply(frame);
  if (!decoded.ok) throw new Error(decoded.error);
  return decoded.value;
}

describe("adapter reply frame", () => {
  it("round-trips metadata and data bytes, including data containing escaped newlines", () => {
    const data = JSON.stringify([{ body: "line one\nline two", n: 1 }]);
    const decoded = expectDecoded(encodeAdapterReply({ outcome: "ok", cursor: 5, has_more: true }, data));
    expect(decoded.meta).toEqual({ outcome: "ok", cursor: 5, has_more: true });
    expect(JSON.parse(new TextDecoder().decode(decoded.data))).toEqual([
      { body: "line one\nline two", n: 1 },
    ]);
  });

  it("carries failures without data", () => {
    const decoded = expectDecoded(encodeAdapterReply({ outcome: "unavailable", message: "upstream 503" }));
    expect(decoded).toEqual({ meta: { outcome: "unavailable", message: "upstream 503" } });
  });

  it("refuses a malformed frame so a broken adapter is never billed as success", () => {
    const decode = (text: string) => decodeAdapterReply(new TextEncoder().encode(text));
    expect(decode('{"outcome":"ok"}')).toEqual({ ok: false, error: "adapter reply frame has no data" });
    expect(decode("not json\n[]")).toEqual({ ok: false, error: "adapter reply frame: not JSON" });
    expect(decode('{"outcome":"weird"}\n[]')).toMatchObject({ ok: false, error: /adapter reply frame: / });
  });
});
