/**
 * Parquet with a real schema, written by DuckDB (`@duckdb/node-api`): each column's type is read
 * from the rows (one streaming pass, ColumnScan). Integers are BIGINT, other numbers DOUBLE,
 * booleans BOOLEAN; the item's times (`created_utc`, `retrieved_on`), when every value is an
 * integer, are TIMESTAMP (UTC); nested values (objects, arrays) and columns whose values disagree
 * in type are their JSON text (VARCHAR). The rows are staged on disk as JSON lines already in those
 * types, and DuckDB reads that file into the Parquet file, so memory stays bounded however many
 * rows there are.
 */
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DuckDBInstance } from "@duckdb/node-api";

type ColumnType = "BIGINT" | "DOUBLE" | "BOOLEAN" | "VARCHAR" | "TIMESTAMP";
type Row = Record<string, unknown>;

/** Epoch-second fields of posts and comments that are times, not counts. */
const TIME_FIELDS = new Set(["created_utc", "retrieved_on", "created"]);

/** The columns of a stream of rows, in order of first appearance, and the kinds of their values. */
export class ColumnScan {
  private readonly kinds = new Map<string, Set<string>>();

  async scan(rows: AsyncIterable<Row>): Promise<this> {
    for await (const row of rows) this.see(row);
    return this;
  }

  see(row: Row): void {
    for (const [name, value] of Object.entries(row)) {
      let kinds = this.kinds.get(name);
      if (kinds === undefined) {
        kinds = new Set();
        this.kinds.set(name, kinds);
      }
      if (value === null || value === undefined) continue;
      if (typeof value === "number") kinds.add(Number.isSafeInteger(value) ? "integer" : "number");
      else if (typeof value === "object") kinds.add("json");
      else kinds.add(typeof value);
    }
  }

  names(): string[] {
    return [...this.kinds.keys()];
  }

  types(): { name: string; type: ColumnType }[] {
    return [...this.kinds].map(([name, kinds]) => ({ name, type: columnType(name, kinds) }));
  }
}

function columnType(name: string, kinds: ReadonlySet<string>): ColumnType {
  if (kinds.size === 1 && kinds.has("integer")) return TIME_FIELDS.has(name) ? "TIMESTAMP" : "BIGINT";
  if (kinds.size > 0 && [...kinds].every((kind) => kind === "integer" || kind === "number")) return "DOUBLE";
  if (kinds.size === 1 && kinds.has("boolean")) return "BOOLEAN";
  return "VARCHAR";
}

/** A row's values as their columns' types will read them (VARCHAR values as text). */
function staged(row: Row, columns: readonly { name: string; type: ColumnType }[]): string {
  const out: Row = {};
  for (const { name, type } of columns) {
    const value = row[name];
    if (value === null || value === undefined) out[name] = null;
    else if (type === "VARCHAR") out[name] = typeof value === "string" ? value : JSON.stringify(value);
    else out[name] = value;
  }
  return `${JSON.stringify(out)}\n`;
}

const sqlString = (text: string) => `'${text.replace(/'/g, "''")}'`;
const sqlName = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Writes `rows` as Parquet to `out`, staging them in `workdir`; `seen` is told of every row as it
 * is staged (the manifest's counts).
 */
export async function writeParquet(
  rows: AsyncIterable<Row>,
  scan: ColumnScan,
  workdir: string,
  out: string,
  seen: (row: Row) => void,
): Promise<void> {
  const columns = scan.types();
  const stagedPath = join(workdir, "staged.jsonl");
  async function* lines() {
    for await (const row of rows) {
      seen(row);
      yield staged(row, columns);
    }
  }
  await pipeline(Readable.from(lines()), createWriteStream(stagedPath));
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    // DuckDB spills to the work directory rather than growing past its memory limit.
    await connection.run(`SET temp_directory = ${sqlString(join(workdir, "duckdb"))}`);
    await connection.run("SET memory_limit = '256MB'");
    let select: string;
    if (columns.length === 0) {
      select = "SELECT NULL::VARCHAR AS empty WHERE false";
    } else {
      // Times are staged as epoch seconds and become TIMESTAMP (UTC) here.
      const read = columns
        .map(({ name, type }) => `${sqlString(name)}: ${sqlString(type === "TIMESTAMP" ? "BIGINT" : type)}`)
        .join(", ");
      const picked = columns
        .map(({ name, type }) =>
          type === "TIMESTAMP" ? `epoch_ms(${sqlName(name)} * 1000) AS ${sqlName(name)}` : sqlName(name),
        )
        .join(", ");
      select = `SELECT ${picked} FROM read_json(${sqlString(stagedPath)}, format = 'newline_delimited', columns = {${read}})`;
    }
    await connection.run(`COPY (${select}) TO ${sqlString(out)} (FORMAT parquet, COMPRESSION snappy)`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
