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
  let end = raw.byteLength;
  while (end > 0 && isWhitespace(raw[end - 1]!)) end -= 1;
  if (raw[end - 1] !== CLOSING_BRACE) return undefined;
  end -= 1;
  let start = opening[0].length;
  while (start < end && isWhitespace(raw[start]!)) start += 1;
  while (end > start && isWhitespace(raw[end - 1]!)) end -= 1;
  return raw.subarray(start, end);
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/**
 * The JSON of the first `count` elements of the JSON array `array` (the upstream's bytes of it), or
 * undefined when `array` is not an array with at least that many elements. Elements are found by
 * scanning: strings are skipped with a native search for their closing quote, so only the structure
 * between them is walked byte by byte.
 */
export function jsonArrayPrefix(array: Uint8Array, count: number): Uint8Array | undefined {
  if (array[0] !== OPEN_BRACKET) return undefined;
  if (count === 0) return Uint8Array.of(OPEN_BRACKET, CLOSE_BRACKET);
  const end = endOfElement(array, count);
  if (end === undefined) return undefined;
  if (end === array.length - 1) return array;
  const prefix = new Uint8Array(end + 1);
  prefix.set(array.subarray(0, end));
  prefix[end] = CLOSE_BRACKET;
  return prefix;
}

/**
 * The offset of what ends the `count`-th top-level element: the comma after it, or the array's
 * closing bracket when it is the last one.
 */
function endOfElement(array: Uint8Array, count: number): number | undefined {
  const bytes = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  let depth = 0;
  let commas = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === QUOTE) {
      i = closingQuote(bytes, i + 1);
      if (i < 0) return undefined;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth += 1;
    } else if (byte === CLOSING_BRACE || byte === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) return commas + 1 === count ? i : undefined;
    } else if (byte === COMMA && depth === 1) {
      commas += 1;
      if (commas === count) return i;
    }
  }
  return undefined;
}

/** The index of the quote that closes a string whose content starts at `from`, or -1. */
function closingQuote(bytes: Buffer, from: number): number {
  for (let at = from; ; ) {
    const quote = bytes.indexOf(QUOTE, at);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}
