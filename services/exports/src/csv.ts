/**
 * CSV per RFC 4180 (result-file.ts writes it line by line): a header row, CRLF line ends, and a field quoted (its quotes doubled) when it
 * holds a comma, a quote, CR or LF. Nested values (objects, arrays) are written as their JSON text,
 * null and missing fields as empty fields.
 */
export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvField).join(",")}\r\n`;
}

function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
