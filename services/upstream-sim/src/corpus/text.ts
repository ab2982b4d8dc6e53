/**
 * Deterministic text. Each generator draws only from the rng it is given, so an
 * item's text is a pure function of its own seed and can be rebuilt per request.
 */
import type { Rng } from "./prng.ts";
import { chance, intBetween, pick } from "./prng.ts";
import { ADJECTIVES, FILLER_WORDS, PERIODS, SENTENCE_TEMPLATES, TITLE_TEMPLATES, VERBS } from "./words.ts";

const capitalize = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

function fill(rng: Rng, template: string, topics: readonly string[]): string {
  return template.replace(/\{(\w+)\}/g, (_, slot: string) => {
    switch (slot) {
      case "topic":
      case "topic2":
        return pick(rng, topics);
      case "verb":
        return pick(rng, VERBS);
      case "adj":
        return pick(rng, ADJECTIVES);
      case "Adj":
        return capitalize(pick(rng, ADJECTIVES));
      case "period":
        return pick(rng, PERIODS);
      default:
        return String(intBetween(rng, 2, 15));
    }
  });
}

export function makeTitle(rng: Rng, topics: readonly string[]): string {
  return capitalize(fill(rng, pick(rng, TITLE_TEMPLATES), topics));
}

function makeSentence(rng: Rng, topics: readonly string[]): string {
  if (chance(rng, 0.25)) return freeSentence(rng);
  return fill(rng, pick(rng, SENTENCE_TEMPLATES), topics);
}

function freeSentence(rng: Rng): string {
  const count = intBetween(rng, 5, 14);
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(pick(rng, FILLER_WORDS));
  return `${capitalize(parts.join(" "))}.`;
}

function paragraph(rng: Rng, topics: readonly string[], sentences: number): string {
  const parts: string[] = [];
  for (let i = 0; i < sentences; i++) parts.push(makeSentence(rng, topics));
  return parts.join(" ");
}

/** Comment bodies: about 150 characters on average, sometimes with markdown. */
export function makeBody(rng: Rng, topics: readonly string[]): string {
  const text = paragraph(rng, topics, intBetween(rng, 1, 3));
  if (chance(rng, 0.08)) return `> ${makeSentence(rng, topics)}\n\n${text}`;
  if (chance(rng, 0.05)) return `${text}\n\n* ${pick(rng, topics)}\n* ${pick(rng, topics)}`;
  return text;
}

/** Self post text: empty sometimes, otherwise one to four paragraphs. */
export function makeSelftext(rng: Rng, topics: readonly string[]): string {
  if (chance(rng, 0.15)) return "";
  const paragraphs: string[] = [];
  const count = intBetween(rng, 1, 4);
  for (let i = 0; i < count; i++) paragraphs.push(paragraph(rng, topics, intBetween(rng, 1, 3)));
  if (chance(rng, 0.1))
    paragraphs.push(`**Edit:** thanks for all the answers about the ${pick(rng, topics)}!`);
  return paragraphs.join("\n\n");
}

export function makePublicDescription(rng: Rng, topics: readonly string[], title: string): string {
  return `${title}: a community for ${pick(rng, topics)} and ${pick(rng, topics)} talk.`;
}

/** The long sidebar, in markdown like real subreddits. */
export function makeSidebar(
  rng: Rng,
  topics: readonly string[],
  title: string,
  rules: readonly string[],
): string {
  const lines = [`# Welcome to ${title}`, "", paragraph(rng, topics, 3), "", "## Rules", ""];
  for (const [i, rule] of rules.entries()) lines.push(`${i + 1}. ${rule}`);
  lines.push(
    "",
    "## Related",
    "",
    `* [FAQ](/wiki/faq)`,
    `* [Weekly ${pick(rng, topics)} thread](/wiki/weekly)`,
  );
  return lines.join("\n");
}

/** Reddit's permalink slug: lowercase words joined by underscores, about 50 chars at most. */
export function slugify(title: string): string {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (slug.length <= 50) return slug || "_";
  const cut = slug.slice(0, 50);
  const lastBreak = cut.lastIndexOf("_");
  return lastBreak > 0 ? cut.slice(0, lastBreak) : cut;
}
