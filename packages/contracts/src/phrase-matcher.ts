/**
 * Shared by the adapters (`q` on a listing page) and the monitors service (a monitor's phrase).
 * `q` (docs/api.md#endpoints): an exact phrase, case-insensitive, matched on word boundaries, with basic singular
 * and plural flexibility per word (cat↔cats, box↔boxes, story↔stories). Applied to the fetched page,
 * never sent upstream (the upstream's keyword search is "unreliable" and sometimes off: docs/upstream.md#post-and-comment-search).
 */

export type PhraseMatcher = (text: string) => boolean;

export function createPhraseMatcher(phrase: string): PhraseMatcher {
  const words = phrase.trim().toLowerCase().split(/\s+/);
  const body = words.map((word) => `(?:${wordForms(word).map(escapeRegExp).join("|")})`).join("\\s+");
  // Letters and digits of any script count as word characters, so "café" is not matched inside "cafés…".
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])${body}(?![\\p{L}\\p{N}_])`, "iu");
  return (text) => pattern.test(text);
}

/** The word itself, its plural and its singular, longest first so the alternation prefers them. */
function wordForms(word: string): string[] {
  const forms = new Set([word, pluralOf(word), ...singularsOf(word)].filter((form) => form.length > 0));
  return [...forms].sort((a, b) => b.length - a.length);
}

function pluralOf(word: string): string {
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  return `${word}s`;
}

/** Candidates only: "boxes" → box (and "boxe"), "horses" → horse (and "hors"); a non-word never matches. */
function singularsOf(word: string): string[] {
  if (/[^aeiou]ies$/.test(word) && word.length > 4) return [`${word.slice(0, -3)}y`];
  if (/(s|x|z|ch|sh)es$/.test(word)) return [word.slice(0, -2), word.slice(0, -1)];
  // "bus", "glass", "analysis" are singular already.
  if (/[^su]s$/.test(word) && !/is$/.test(word)) return [word.slice(0, -1)];
  return [];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
