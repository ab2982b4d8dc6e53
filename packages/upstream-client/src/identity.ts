/**
 * How the product names itself to the upstream (docs/upstream.md#assumptions): a `User-Agent` on every
 * request, as every published client sends one and the upstream sits behind Cloudflare, and the
 * `meta-app` parameter its README asks clients to send. Operators set UPSTREAM_USER_AGENT to add their
 * contact; the default says that it is missing rather than invent one.
 */
export const DEFAULT_APP_NAME = "reddit-data-api";

export const DEFAULT_USER_AGENT = `${DEFAULT_APP_NAME}/1.0 (operator contact not configured)`;
