/** Builds the path of one upstream request under the base URL's own path prefix. */
import type { UpstreamQuery } from "./types.ts";

export interface UpstreamOrigin {
  readonly origin: string;
  /** Path prefix of UPSTREAM_URL without a trailing slash ("" for none). */
  readonly prefix: string;
}

export function parseBaseUrl(baseUrl: string): UpstreamOrigin {
  const url = new URL(baseUrl);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`upstream base URL must be http(s), got ${url.protocol}`);
  }
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, "") };
}

/** Parameters keep the caller's order; the same call always yields the same path (coalescing key). */
export function buildRequestPath(prefix: string, path: string, query: UpstreamQuery): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.append(name, String(value));
  }
  const text = search.toString();
  return text === "" ? `${prefix}${path}` : `${prefix}${path}?${text}`;
}
