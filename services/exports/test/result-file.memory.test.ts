/**
 * A big export is assembled without holding its rows: pages are read back as streams and the file
 * is written on disk. Sixty megabytes of pages become a gzipped JSONL file, a CSV file and a Parquet
 * file in a process whose JavaScript heap is capped at 48 MB (the rows, held, would need several
 * times that), and every row is in the file once, in page order.
 */

import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import type { ExportFile, ExportManifest } from "@rda/contracts";
import { parquetMetadataAsync, parquetReadObjects } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filesystemStore, type ObjectStore } from "../src/object-store.ts";
import { partName } from "../src/result-file.ts";

const run = promisify(execFile);

const PAGES = 600;
const ROWS_PER_PAGE = 100;
/** About 1 KB per row: 60 MB of pages. */
const BODY = 'lorem ipsum, dolor "sit" amet\n'.repeat(32);
/** The child's heap: less than the pages' size, let alone the rows parsed. */
const HEAP_LIMIT_MB = 48;

let dir: string;
let store: ObjectStore;
const id = "exp_0123456789abcdef01234567";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rda-assemble-"));
  store = filesystemStore(dir);
  for (let page = 1; page <= PAGES; page++) {
    const lines = [];
    for (let row = 0; row < ROWS_PER_PAGE; row++) {
      const n = (page - 1) * ROWS_PER_PAGE + row;
      lines.push(
        `${JSON.stringify({ id: `c${n}`, created_utc: 1_700_000_000 + n, score: n % 7, body: BODY })}\n`,
      );
    }
    await store.put(partName(id, page, "w1"), lines.join(""));
  }
}, 120_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Assembles the export in a child process whose heap is capped; its file and manifest. */
async function assembleInSmallHeap(format: string, gzip: boolean) {
  const { stdout } = await run(
    process.execPath,
    [
      `--max-old-space-size=${HEAP_LIMIT_MB}`,
      "--import",
      "tsx",
      join(import.meta.dirname, "support", "assemble-in-small-heap.ts"),
      dir,
      id,
      String(PAGES),
      format,
      gzip ? "gzip" : "plain",
    ],
    { maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout) as { file: ExportFile; manifest: ExportManifest };
}

describe("assembling a big export", () => {
  it("writes gzipped JSONL in a heap smaller than the pages, every row once and in order", async () => {
    const value = await assembleInSmallHeap("jsonl", true);
    const stored = await readFile(join(dir, value.file.path));
    expect(value.manifest.bytes).toBe(stored.length);
    expect(value.manifest.sha256).toBe(createHash("sha256").update(stored).digest("hex"));
    const lines = gunzipSync(stored).toString("utf8").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.length).toBe(PAGES * ROWS_PER_PAGE);
    expect(lines.length * BODY.length).toBeGreaterThan(HEAP_LIMIT_MB * 1024 * 1024);
    expect(value.manifest.rows).toBe(PAGES * ROWS_PER_PAGE);
    for (const at of [0, 1, 4_999, 30_000, lines.length - 1]) {
      expect((JSON.parse(lines[at] as string) as { id: string }).id).toBe(`c${at}`);
    }
    expect(value.manifest.covered).toMatchObject({
      first_created_utc: 1_700_000_000,
      last_created_utc: 1_700_000_000 + PAGES * ROWS_PER_PAGE - 1,
    });
    expect(value.manifest.complete).toBe(true);
  }, 120_000);

  it("writes CSV (columns found in a first pass) within the same heap", async () => {
    const value = await assembleInSmallHeap("csv", false);
    const text = await readFile(join(dir, value.file.path), "utf8");
    expect(text.startsWith("id,created_utc,score,body\r\n")).toBe(true);
    // Each row's body holds 32 line breaks inside its quotes; the records end with CRLF.
    expect(text.split('"\r\n').length - 1).toBe(PAGES * ROWS_PER_PAGE);
    expect(value.manifest.rows).toBe(PAGES * ROWS_PER_PAGE);
  }, 120_000);

  it("writes Parquet through DuckDB from the staged rows within the same heap, typed", async () => {
    const value = await assembleInSmallHeap("parquet", false);
    const bytes = await readFile(join(dir, value.file.path));
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const metadata = await parquetMetadataAsync(buffer);
    expect(Number(metadata.num_rows)).toBe(PAGES * ROWS_PER_PAGE);
    // The last row: integers read back as bigint, times as timestamps.
    const [last] = (await parquetReadObjects({
      file: buffer,
      rowStart: PAGES * ROWS_PER_PAGE - 1,
      rowEnd: PAGES * ROWS_PER_PAGE,
    })) as Record<string, unknown>[];
    const n = PAGES * ROWS_PER_PAGE - 1;
    expect(last).toMatchObject({ id: `c${n}`, score: BigInt(n % 7), body: BODY });
    expect((last!.created_utc as Date).getTime() / 1000).toBe(1_700_000_000 + n);
  }, 120_000);
});
