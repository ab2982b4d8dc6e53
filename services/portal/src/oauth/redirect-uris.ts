/**
 * Which redirect URIs a client may register (by dynamic registration or in its metadata document):
 * https, or plain http only on the person's own machine (a loopback address: RFC 8252, what CLI
 * clients such as mcp-remote listen on). A client with a loopback redirect is a native app, whose
 * redirect may then come back on another port (RFC 8252 section 7.3): its local listener takes
 * whatever port is free. Every other redirect must match exactly.
 *
 * Clients are public: PKCE is their proof, so a client asking for a shared secret is registered as
 * `none` (RFC 7591 lets the server replace requested metadata; the answer says what was registered).
 *
 * A registration is kept in Redis, so what it may hold is bounded: at most MAX_REDIRECT_URIS redirect
 * URIs of at most MAX_REDIRECT_URI_LENGTH characters each. `sector_identifier_uri` is refused: it
 * would make the portal fetch a URL the client chose, for pairwise subjects it does not offer.
 */
import { errors } from "oidc-provider";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
export const MAX_REDIRECT_URIS = 10;
export const MAX_REDIRECT_URI_LENGTH = 2_000;

export function checkRedirectUris(metadata: Record<string, unknown>): void {
  if (metadata.sector_identifier_uri !== undefined) {
    throw new errors.InvalidClientMetadata("sector_identifier_uri is not supported");
  }
  const uris = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris : [];
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new errors.InvalidRedirectUri(`at most ${MAX_REDIRECT_URIS} redirect_uris may be registered`);
  }
  if (uris.some((uri) => typeof uri === "string" && uri.length > MAX_REDIRECT_URI_LENGTH)) {
    throw new errors.InvalidRedirectUri(
      `a redirect URI may be at most ${MAX_REDIRECT_URI_LENGTH} characters`,
    );
  }
  let loopback = false;
  for (const uri of uris) {
    const url = typeof uri === "string" ? URL.parse(uri) : null;
    if (url?.protocol === "https:") continue;
    if (url?.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) {
      loopback = true;
      continue;
    }
    throw new errors.InvalidRedirectUri(
      "redirect_uris must be https URLs, or http on a loopback address (127.0.0.1, [::1] or localhost)",
    );
  }
  if (loopback) metadata.application_type = "native";
  metadata.token_endpoint_auth_method = "none";
}
