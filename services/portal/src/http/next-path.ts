/**
 * Where to go after signing in. It comes from a query string, so it must be a path of this site:
 * one leading slash (never `//host` or `/\host`, which browsers read as another site), plain
 * characters, bounded length. Anything else means the keys page.
 */
const SAFE_PATH = /^\/(?![/\\])[A-Za-z0-9/_.~?=&%-]{0,200}$/;

export const DEFAULT_NEXT = "/keys";

export function safeNextPath(raw: unknown): string {
  return typeof raw === "string" && SAFE_PATH.test(raw) && !raw.startsWith("/auth") ? raw : DEFAULT_NEXT;
}
