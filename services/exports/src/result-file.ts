/**
 * Turns a job's pages (JSON lines, one object per row, in page order) into the file the
 * caller asked for, and its manifest, without holding the rows in memory: the pages are read as
 * streams, line by line, and the file is written to a temporary file on disk (gzip streamed where
 * asked), then moved or uploaded into the object store. JSONL keeps each row as the API returned
 * it; CSV follows csv.ts; Parquet is written by DuckDB from a staged JSONL file (parquet.ts) with a
 * typed schema. Columns (CSV without `fields`, Parquet) take one pass over the pages before the
 * writing pass. The pages stay until the job is recorded done (the worker removes them then), so a
 * worker that dies while assembling leaves everything another needs to assemble again. A job that
 * ends early keeps its pages until its file expires, so a job stopped at its ceiling can go on.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Readable, type Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import type { ExportFile, ExportManifest, ExportQuery } from "@rda/contracts";
import { csvLine } from "./csv.ts";
import type { ObjectStore } from "./object-store.ts";
import { ColumnScan, writeParquet } from "./parquet.ts";

/**
 * The job's pages from `from` on (up to the next writer's) were written by the lease holder named
 * `writer`. Each holder writes its pages under its own name, and only the names its checkpoint
 * writes counted make the file: a holder that stalled past its lease and writes a page late writes
 * a part nobody reads, never over the part another holder counted.
 */
export interface PageWriter {
  readonly from: number;
  readonly writer: string;
}

export function partName(id: string, page: number, writer: string): string {
  return `${id}/parts/${String(page).padStart(7, "0")}.${writer}.jsonl`;
}

/** The part that holds `page`, as the checkpoint's writers say. */
export function partOf(id: string, page: number, writers: readonly PageWriter[]): string {
  const writer = writers.findLast((entry) => entry.from <= page)?.writer;
  if (writer === undefined) throw new Error(`page ${page} of ${id} has no writer`);
  return partName(id, page, writer);
}

/** The writers after `writer` wrote `page`: unchanged while the same holder goes on. */
export function withWriter(writers: readonly PageWriter[], page: number, writer: string): PageWriter[] {
  return writers.at(-1)?.writer === writer ? [...writers] : [...writers, { from: page, writer }];
}

const CONTENT_TYPES = {
  jsonl: "application/x-ndjson",
  csv: "text/csv; charset=utf-8",
  parquet: "application/vnd.apache.parquet",
};

type Row = Record<string, unknown>;

/** Every row of the job's pages, in order, read one line at a time. */
async function* rowsOf(
  store: ObjectStore,
  id: string,
  pages: number,
  writers: readonly PageWriter[],
): AsyncGenerator<Row> {
  for (let page = 1; page <= pages; page++) {
    const stream = await store.open(partOf(id, page, writers));
    if (stream === undefined) throw new Error(`page ${page} of ${id} is missing from the store`);
    for await (const line of createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })) {
      if (line !== "") yield JSON.parse(line) as Row;
    }
  }
}

/** Row count and time span, gathered as the rows go by. */
class Coverage {
  rows = 0;
  first: number | null = null;
  last: number | null = null;
  see(row: Row) {
    this.rows += 1;
    const time = row.created_utc as number;
    if (this.first === null || time < this.first) this.first = time;
    if (this.last === null || time > this.last) this.last = time;
  }
}

/** Writes text chunks to `path`, through gzip when asked; backpressure is the stream's. */
async function writeText(chunks: AsyncIterable<string>, path: string, gzip: boolean): Promise<void> {
  const steps: (Readable | Transform)[] = [Readable.from(chunks)];
  if (gzip) steps.push(createGzip());
  await pipeline([...steps, createWriteStream(path)]);
}

async function* jsonLines(rows: AsyncIterable<Row>, coverage: Coverage): AsyncGenerator<string> {
  for await (const row of rows) {
    coverage.see(row);
    yield `${JSON.stringify(row)}\n`;
  }
}

async function* csvLines(
  rows: AsyncIterable<Row>,
  columns: string[],
  coverage: Coverage,
): AsyncGenerator<string> {
  yield csvLine(columns);
  for await (const row of rows) {
    coverage.see(row);
    yield csvLine(columns.map((name) => row[name]));
  }
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * The window a file covers: the query's when every page was fetched; otherwise up to the last
 * page's cursor, one second past it because bounds are exclusive and pages never split a second
 * (docs/api.md#trimmed-pages), so every row of the query up to it is in the file.
 */
export interface FileExtent {
  readonly pages: number;
  /** Who wrote them (the checkpoint's writers). */
  readonly writers: readonly PageWriter[];
  readonly complete: boolean;
  /** The last page's cursor (created_utc of its last row). */
  readonly cursor: number;
}

export async function assembleResult(
  store: ObjectStore,
  id: string,
  query: ExportQuery,
  extent: FileExtent,
): Promise<{ file: ExportFile; manifest: ExportManifest }> {
  const { pages, writers, complete } = extent;
  const workdir = await mkdtemp(join(tmpdir(), `rda-${id}-`));
  try {
    const out = join(workdir, "out");
    const coverage = new Coverage();
    const rows = () => rowsOf(store, id, pages, writers);
    if (query.format === "jsonl") {
      await writeText(jsonLines(rows(), coverage), out, query.gzip);
    } else if (query.format === "csv") {
      const columns = query.fields?.split(",") ?? (await new ColumnScan().scan(rows())).names();
      await writeText(csvLines(rows(), columns, coverage), out, query.gzip);
    } else {
      const columns = await new ColumnScan().scan(rows());
      await writeParquet(rows(), columns, workdir, out, (row) => coverage.see(row));
    }
    const bytes = (await stat(out)).size;
    const sha256 = await sha256Of(out);
    const extension = `${query.format}${query.gzip ? ".gz" : ""}`;
    const path = `${id}/${id}.${extension}`;
    await store.putFile(path, out);
    const { format, gzip, ...asked } = query;
    const manifest: ExportManifest = {
      rows: coverage.rows,
      bytes,
      sha256,
      format,
      gzip,
      query: asked,
      covered: {
        first_created_utc: coverage.first,
        last_created_utc: coverage.last,
        after: query.after,
        before: complete ? query.before : Math.min(query.before, extent.cursor + 1),
      },
      complete,
      pages,
      created_at: new Date().toISOString(),
    };
    await store.put(`${id}/manifest.json`, JSON.stringify(manifest, null, 2));
    const contentType = query.gzip ? "application/gzip" : CONTENT_TYPES[format];
    return { file: { path, bytes, content_type: contentType, filename: `${id}.${extension}` }, manifest };
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
}
