/**
 * Run by result-file.memory.test.ts in a process whose heap is capped (node --max-old-space-size):
 * assembles the export whose pages are in the filesystem store at argv[2] and prints its manifest.
 * An assembly that held the rows in memory would die here of an exhausted heap.
 */
import type { ExportQuery } from "@rda/contracts";
import { filesystemStore } from "../../src/object-store.ts";
import { assembleResult } from "../../src/result-file.ts";

const [dir, id, pages, format, gzip] = process.argv.slice(2) as [string, string, string, string, string];
const query: ExportQuery = {
  kind: "comments",
  subreddit: "big",
  after: 0,
  before: 2_000_000_000,
  format: format as ExportQuery["format"],
  gzip: gzip === "gzip",
};
const { file, manifest } = await assembleResult(filesystemStore(dir), id, query, {
  pages: Number(pages),
  writers: [{ from: 1, writer: "w1" }],
  complete: true,
  cursor: query.before,
});
process.stdout.write(JSON.stringify({ file, manifest }));
