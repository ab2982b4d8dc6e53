/**
 * The exact bytes of a body's `data` value, so an adapter that hands the upstream's rows on
 * unchanged can forward them without serialising them again (the page is the largest thing on the
 * path). Found without a second parse: a body `{"data": VALUE}` with no other key is, by JSON's
 * grammar, `{`, the key, `:`, VALUE and `}` with only whitespace around them. A body whose opening
 * does not read that way gives undefined, and the caller serialises.
 */

const OPENING = /^\s*\{\s*"data"\s*:/;
const OPENING_WINDOW = 64;
const CLOSING_BRACE = 0x7d;

/** `raw` must hold a JSON object whose only key is `data` (the caller parsed it). */
export function locateDataBytes(raw: Uint8Array): Uint8Array | undefined {
  const head = Buffer.from(raw.buffer, raw.byteOffset, Math.min(raw.byteLength, OPENING_WINDOW)).toString(
    "latin1",
  );
  const opening = OPENING.exec(head);
  if (!opening) return undefined;
  const brace = trimWhitespaceEnd(raw, 0, raw.byteLength) - 1;
  if (raw[brace] !== CLOSING_BRACE) return undefined;
  const start = skipWhitespace(raw, opening[0].length, brace);
  return raw.subarray(start, trimWhitespaceEnd(raw, start, brace));
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The first index in [from, to) that is not JSON whitespace; `to` when there is none. */
function skipWhitespace(bytes: Uint8Array, from: number, to: number): number {
  let at = from;
  while (at < to && isWhitespace(bytes[at]!)) at += 1;
  return at;
}

/** The end (exclusive) of bytes[from, to) once its trailing JSON whitespace is dropped. */
function trimWhitespaceEnd(bytes: Uint8Array, from: number, to: number): number {
  let end = to;
  while (end > from && isWhitespace(bytes[end - 1]!)) end -= 1;
  return end;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/**
 * The JSON of the first `count` elements of the JSON array `array` (the upstream's bytes of it),
 * which holds `length` elements (the caller parsed it), or undefined when the bytes do not read that
 * way. A listing page is trimmed by its last few rows, so the cut is found from the end: strings are
 * skipped with a native search for their opening quote, so only the structure between them is
 * walked byte by byte, and only as far back as the rows dropped.
 */
export function jsonArrayPrefix(array: Uint8Array, count: number, length: number): Uint8Array | undefined {
  const bytes = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  const open = skipWhitespace(bytes, 0, bytes.length);
  const close = trimWhitespaceEnd(bytes, open, bytes.length) - 1;
  if (bytes[open] !== OPEN_BRACKET || bytes[close] !== CLOSE_BRACKET) return undefined;
  if (count < 0 || count > length) return undefined;
  if (count === length) return array;
  if (count === 0) return Uint8Array.of(OPEN_BRACKET, CLOSE_BRACKET);
  const end = commaBefore(bytes, close, length - count);
  if (end === undefined) return undefined;
  const prefix = new Uint8Array(end + 1);
  prefix.set(bytes.subarray(0, end));
  prefix[end] = CLOSE_BRACKET;
  return prefix;
}

/**
 * The offset of the top-level comma that comes `elements` elements before the array's closing
 * bracket at `close`: the comma after the element the prefix keeps last.
 */
function commaBefore(bytes: Buffer, close: number, elements: number): number | undefined {
  let depth = 0;
  let commas = 0;
  for (let i = close - 1; i > 0; i--) {
    const byte = bytes[i]!;
    if (byte === QUOTE) {
      i = openingQuote(bytes, i - 1);
      if (i < 0) return undefined;
    } else if (byte === CLOSING_BRACE || byte === CLOSE_BRACKET) {
      depth += 1;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth -= 1;
      if (depth < 0) return undefined;
    } else if (byte === COMMA && depth === 0) {
      commas += 1;
      if (commas === elements) return i;
    }
  }
  return undefined;
}

/**
 * The index of the quote that opens a string whose closing quote follows `from`, or -1. Inside a
 * JSON string every quote is escaped (an odd run of backslashes before it), and outside one there
 * are no backslashes: the nearest unescaped quote before is the opening one.
 */
function openingQuote(bytes: Buffer, from: number): number {
  for (let at = from; at >= 0; ) {
    const quote = bytes.lastIndexOf(QUOTE, at);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    at = quote - 1;
  }
  return -1;
}
