import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonArrayPrefix } from "../src/index.ts";
import { classifyAnswer } from "../src/retry-policy.ts";

const text = (bytes: Uint8Array | undefined) =>
  bytes === undefined ? undefined : Buffer.from(bytes).toString("utf8");
const dataBytesOf = (body: string) => {
  const verdict = classifyAnswer(200, undefined, body);
  if (verdict.kind !== "ok") throw new Error(`not ok: ${verdict.kind}`);
  return verdict.body.dataBytes;
};

describe("the upstream's own bytes of data", () => {
  it("are found in a body whose only key is data, whatever the whitespace", () => {
    expect(text(dataBytesOf('{"data":[{"id":"a"}]}'))).toBe('[{"id":"a"}]');
    expect(text(dataBytesOf(' {\n  "data" :  [ 1, 2 ] \n}\n'))).toBe("[ 1, 2 ]");
  });

  it("are not offered when the body carries anything besides data", () => {
    expect(dataBytesOf('{"data":[1],"total":1}')).toBeUndefined();
    expect(dataBytesOf('{"meta":{},"data":[1]}')).toBeUndefined();
  });
});

describe("jsonArrayPrefix", () => {
  /** The element count the caller knows from its own parse (the count itself for what is no array). */
  const lengthOf = (json: string, count: number) => {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.length : count;
  };
  const prefix = (json: string, count: number) =>
    text(jsonArrayPrefix(Buffer.from(json), count, lengthOf(json, count)));

  it("cuts after whole elements, never inside a string that holds commas, brackets or escaped quotes", () => {
    const json = '[{"t":"a, b ] } [ {"},{"t":"say \\"hi\\", then \\\\"},{"n":[1,[2,3]],"u":"é→🙂"}]';
    expect(prefix(json, 1)).toBe('[{"t":"a, b ] } [ {"}]');
    expect(prefix(json, 2)).toBe('[{"t":"a, b ] } [ {"},{"t":"say \\"hi\\", then \\\\"}]');
    expect(prefix(json, 3)).toBe(json);
    expect(prefix(json, 0)).toBe("[]");
  });

  it("refuses what is not an array, and a count beyond its length", () => {
    expect(prefix('{"a":1}', 1)).toBeUndefined();
    expect(prefix("[1,2]", 3)).toBeUndefined();
  });

  it("agrees with JSON.parse and JSON.stringify on any array of JSON values, compact or indented", () => {
    const indents = fc.constantFrom(undefined, 2, "\t");
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { minLength: 1, maxLength: 12 }),
        fc.nat(),
        indents,
        (values, pick, indent) => {
          const count = pick % (values.length + 1);
          const json = ` ${JSON.stringify(values, null, indent)}\n`;
          const cut = prefix(json, count);
          expect(cut).toBeDefined();
          expect(JSON.parse(cut!)).toEqual(JSON.parse(json).slice(0, count));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
