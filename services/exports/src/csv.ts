/**
 * CSV per RFC 4180: a header row, CRLF line ends, and a field quoted (its quotes doubled) when it
 * holds a comma, a quote, CR or LF. Nested values (objects, arrays) are written as their JSON text,
 * null and missing fields as empty fields.
 */
export function csvColumns(rows: readonly Record<string, unknown>[], fields?: string): string[] {
  if (fields !== undefined) return fields.split(",");
  const seen = new Set<string>();
  for (const row of rows) for (const name of Object.keys(row)) seen.add(name);
  return [...seen];
}

export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvField).join(",")}\r\n`;
}

function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
