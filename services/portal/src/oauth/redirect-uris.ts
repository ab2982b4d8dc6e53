/**
 * Which redirect URIs a client may register (by dynamic registration or in its metadata document):
 * https, or plain http only on the person's own machine (a loopback address: RFC 8252, what CLI
 * clients such as mcp-remote listen on). A client with a loopback redirect is a native app, whose
 * redirect may then come back on another port (RFC 8252 section 7.3): its local listener takes
 * whatever port is free. Every other redirect must match exactly.
 *
 * Clients are public: PKCE is their proof, so a client asking for a shared secret is registered as
 * `none` (RFC 7591 lets the server replace requested metadata; the answer says what was registered).
 */
import { errors } from "oidc-provider";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function checkRedirectUris(metadata: Record<string, unknown>): void {
  const uris = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris : [];
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
