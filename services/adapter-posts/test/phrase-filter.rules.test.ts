import { describe, expect, it } from "vitest";
import { createPhraseMatcher } from "../src/phrase-filter.ts";

describe("createPhraseMatcher", () => {
  it("matches singular and plural forms in both directions", () => {
    for (const [query, text] of [
      ["cat", "two Cats here"],
      ["cats", "a cat"],
      ["box", "the boxes"],
      ["boxes", "one box"],
      ["story", "bedtime stories"],
      ["stories", "a story"],
    ]) {
      expect(createPhraseMatcher(query!)(text!), `${query} in ${text}`).toBe(true);
    }
  });

  it("matches a phrase case-insensitively only as consecutive whole words", () => {
    const matches = createPhraseMatcher("Black cat");
    expect(matches("a BLACK  cats meeting")).toBe(true);
    expect(matches("black and cat")).toBe(false);
    expect(matches("blackcat")).toBe(false);
  });

  it("does not match inside a longer word", () => {
    const matches = createPhraseMatcher("cat");
    expect(matches("concatenate")).toBe(false);
    expect(matches("category")).toBe(false);
    expect(matches("cat.")).toBe(true);
  });

  it("treats regular-expression characters in the phrase literally", () => {
    expect(createPhraseMatcher("c++ (lang)")("I like c++ (lang) a lot")).toBe(true);
    expect(createPhraseMatcher("a.b")("axb")).toBe(false);
  });
});
