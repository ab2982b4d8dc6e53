/**
 * CSV per RFC 4180 (result-file.ts writes it line by line): a header row, CRLF line ends, and a field quoted (its quotes doubled) when it
 * holds a comma, a quote, CR or LF. Nested values (objects, arrays) are written as their JSON text,
 * null and missing fields as empty fields.
 *
 * Text cells are neutralised as OWASP's "CSV Injection" page recommends, because titles and bodies
 * are written by anyone on Reddit and a spreadsheet runs a cell that starts like a formula: a text
 * value starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`
 * (docs/api.md#exports). Numbers are written as they are, so a numeric column (`score: -3`) stays
 * numeric; only values that are text in the rows are changed.
 */
export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvField).join(",")}\r\n`;
}

const FORMULA_START = /^[=+\-@\t\r]/;

function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  const cell = typeof value === "string" && FORMULA_START.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}
