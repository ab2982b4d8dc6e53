/**
 * Parquet with a real schema, written by DuckDB (`@duckdb/node-api`): each column's type is read
 * from the rows. Integers are BIGINT, other numbers DOUBLE, booleans BOOLEAN; the item's times
 * (`created_utc`, `retrieved_on`), when every value is an integer, are TIMESTAMP (UTC); nested
 * values (objects, arrays) and columns whose values disagree in type are their JSON text (VARCHAR).
 */
import { randomBytes } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DuckDBAppender, DuckDBInstance, timestampValue } from "@duckdb/node-api";
import type { ExportKind } from "@rda/contracts";
import { csvColumns } from "./csv.ts";

type ColumnType = "BIGINT" | "DOUBLE" | "BOOLEAN" | "VARCHAR" | "TIMESTAMP";

/** Epoch-second fields of posts and comments that are times, not counts. */
const TIME_FIELDS = new Set(["created_utc", "retrieved_on", "created"]);

export function columnTypes(rows: readonly Record<string, unknown>[], columns: readonly string[]) {
  return columns.map((name) => ({
    name,
    type: columnType(
      name,
      rows.map((row) => row[name]),
    ),
  }));
}

function columnType(name: string, values: readonly unknown[]): ColumnType {
  const kinds = new Set<string>();
  for (const value of values) {
    if (value === null || value === undefined) continue;
    if (typeof value === "number") kinds.add(Number.isSafeInteger(value) ? "integer" : "number");
    else if (typeof value === "object") kinds.add("json");
    else kinds.add(typeof value);
  }
  if (kinds.size === 1 && kinds.has("integer")) return TIME_FIELDS.has(name) ? "TIMESTAMP" : "BIGINT";
  if (kinds.size > 0 && [...kinds].every((kind) => kind === "integer" || kind === "number")) return "DOUBLE";
  if (kinds.size === 1 && kinds.has("boolean")) return "BOOLEAN";
  return "VARCHAR";
}

export async function writeParquet(
  rows: readonly Record<string, unknown>[],
  _kind: ExportKind,
): Promise<Buffer> {
  const columns = columnTypes(rows, csvColumns(rows));
  const path = join(tmpdir(), `rda-export-${randomBytes(8).toString("hex")}.parquet`);
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
    const definition = columns.map(({ name, type }) => `${quoted(name)} ${type}`).join(", ");
    await connection.run(`CREATE TABLE rows_out (${definition.length > 0 ? definition : "empty VARCHAR"})`);
    const appender = await connection.createAppender("rows_out");
    for (const row of rows) {
      for (const { name, type } of columns) append(appender, type, row[name]);
      appender.endRow();
    }
    appender.closeSync();
    await connection.run(`COPY rows_out TO '${path}' (FORMAT parquet, COMPRESSION snappy)`);
    return await readFile(path);
  } finally {
    connection.closeSync();
    instance.closeSync();
    await rm(path, { force: true });
  }
}

function append(appender: DuckDBAppender, type: ColumnType, value: unknown): void {
  if (value === null || value === undefined) {
    appender.appendNull();
    return;
  }
  switch (type) {
    case "BIGINT":
      appender.appendBigInt(BigInt(value as number));
      break;
    case "DOUBLE":
      appender.appendDouble(value as number);
      break;
    case "BOOLEAN":
      appender.appendBoolean(value as boolean);
      break;
    case "TIMESTAMP":
      appender.appendTimestamp(timestampValue(BigInt(value as number) * 1_000_000n));
      break;
    case "VARCHAR":
      appender.appendVarchar(typeof value === "string" ? value : JSON.stringify(value));
      break;
  }
}
