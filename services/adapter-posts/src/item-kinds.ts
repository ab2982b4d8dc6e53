/** Where each kind of item lives upstream (docs/upstream.md#endpoints-we-use) and which fields `q` searches (docs/api.md#endpoints). */
import type { ItemKind } from "@rda/contracts";

export interface ItemKindConfig {
  readonly searchPath: string;
  readonly idsPath: string;
  /** q filters over title and selftext (posts) or body (comments) (docs/api.md#phrase-filter). */
  readonly textFields: readonly string[];
}

export const ITEM_KINDS: Readonly<Record<ItemKind, ItemKindConfig>> = {
  post: { searchPath: "/api/posts/search", idsPath: "/api/posts/ids", textFields: ["title", "selftext"] },
  comment: { searchPath: "/api/comments/search", idsPath: "/api/comments/ids", textFields: ["body"] },
} as const;

/** One upstream post or comment, passed through as the upstream sent it. */
export type Item = Readonly<Record<string, unknown>>;

/** A row usable in a listing: an object with an integer created_utc (the cursor is built from it; listing-page.ts makes it one). */
export type ListedItem = Item & { readonly created_utc: number };

/** Distrust the wire without copying: checks the rows in place. */
export function asItems(data: unknown): Item[] | undefined {
  if (!Array.isArray(data)) return undefined;
  return data.every((row) => typeof row === "object" && row !== null && !Array.isArray(row))
    ? (data as Item[])
    : undefined;
}
