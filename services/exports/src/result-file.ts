/**
 * Turns a finished job's pages (JSON lines, one object per row, in page order) into the file the
 * caller asked for, and its manifest. JSONL keeps each row as the API returned it; CSV follows
 * csv.ts; Parquet is written by DuckDB (parquet.ts) with a typed schema. Gzip applies to the text
 * formats. The pages stay until the job is recorded done (the worker removes them then), so a
 * worker that dies while assembling leaves everything another needs to assemble again.
 */
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import type { ExportFile, ExportManifest, ExportQuery } from "@rda/contracts";
import { csvColumns, csvLine } from "./csv.ts";
import type { ObjectStore } from "./object-store.ts";
import { writeParquet } from "./parquet.ts";

export function partName(id: string, page: number): string {
  return `${id}/parts/${String(page).padStart(7, "0")}.jsonl`;
}

const CONTENT_TYPES = {
  jsonl: "application/x-ndjson",
  csv: "text/csv; charset=utf-8",
  parquet: "application/vnd.apache.parquet",
};

export async function assembleResult(
  store: ObjectStore,
  id: string,
  query: ExportQuery,
  pages: number,
): Promise<{ file: ExportFile; manifest: ExportManifest }> {
  const rows: Record<string, unknown>[] = [];
  for (let page = 1; page <= pages; page++) {
    const text = (await store.get(partName(id, page)))?.toString("utf8");
    if (text === undefined) throw new Error(`page ${page} of ${id} is missing from the store`);
    for (const line of text.split("\n")) if (line !== "") rows.push(JSON.parse(line));
  }
  let body: Buffer;
  if (query.format === "jsonl") {
    body = Buffer.from(rows.map((row) => `${JSON.stringify(row)}\n`).join(""), "utf8");
  } else if (query.format === "csv") {
    const columns = csvColumns(rows, query.fields);
    const lines = [csvLine(columns), ...rows.map((row) => csvLine(columns.map((name) => row[name])))];
    body = Buffer.from(lines.join(""), "utf8");
  } else {
    body = await writeParquet(rows, query.kind);
  }
  if (query.gzip) body = gzipSync(body);
  const extension = `${query.format}${query.gzip ? ".gz" : ""}`;
  const path = `${id}/${id}.${extension}`;
  await store.put(path, body);
  const times = rows.map((row) => row.created_utc as number);
  const { format, gzip, ...asked } = query;
  const manifest: ExportManifest = {
    rows: rows.length,
    bytes: body.length,
    sha256: createHash("sha256").update(body).digest("hex"),
    format,
    gzip,
    query: asked,
    covered: {
      first_created_utc: times.length > 0 ? Math.min(...times) : null,
      last_created_utc: times.length > 0 ? Math.max(...times) : null,
    },
    pages,
    created_at: new Date().toISOString(),
  };
  await store.put(`${id}/manifest.json`, JSON.stringify(manifest, null, 2));
  const contentType = query.gzip ? "application/gzip" : CONTENT_TYPES[format];
  return {
    file: { path, bytes: body.length, content_type: contentType, filename: `${id}.${extension}` },
    manifest,
  };
}
