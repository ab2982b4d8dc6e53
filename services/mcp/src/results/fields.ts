/**
 * What an item carries by default in a tool result, and the `fields` argument that asks for more.
 * The default is what an agent needs to read and cite an item: the HTTP API's full upstream objects
 * carry 30 to 60 fields each, most of no use to a model, and bodies are a small part of their bytes.
 */
import { KNOWN_FIELDS } from "@rda/contracts";
import { z } from "zod";

export type ItemKind = "post" | "comment";

export const DEFAULT_FIELDS = {
  post: ["id", "title", "author", "subreddit", "created_utc", "score", "num_comments", "permalink"],
  comment: ["id", "body", "author", "subreddit", "created_utc", "score", "link_id", "permalink"],
  /** In a tree the post and community are the same for every node; the parent says where it hangs. */
  treeComment: ["id", "body", "author", "created_utc", "score", "parent_id", "permalink"],
} as const;

/** Every name `fields` may list, sorted so the schema reads like a menu. */
export function fieldNames(kind: ItemKind): [string, ...string[]] {
  return [...KNOWN_FIELDS[kind]].sort() as [string, ...string[]];
}

/** The `fields` argument: an enum in the schema, so a model sees the valid names before it calls. */
export function fieldsArgument(kind: ItemKind) {
  const names = fieldNames(kind);
  const defaults = kind === "post" ? DEFAULT_FIELDS.post : DEFAULT_FIELDS.comment;
  return z
    .array(z.enum(names, { error: `must be one of the ${kind} fields: ${names.join(", ")}` }), {
      error: `must be a list of ${kind} field names, such as ["${kind === "post" ? "selftext" : "parent_id"}"]`,
    })
    .max(names.length)
    .optional()
    .meta({
      description: `Extra ${kind} fields to return besides the default ${defaults.join(", ")}.`,
    });
}

/** The default fields plus the asked ones, in a stable order. */
export function selectedFields(defaults: readonly string[], asked: readonly string[] | undefined): string[] {
  return [...new Set([...defaults, ...(asked ?? [])])];
}

/** A copy of the item with only the selected fields it has. */
export function project(item: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of fields) if (name in item) out[name] = item[name];
  return out;
}
