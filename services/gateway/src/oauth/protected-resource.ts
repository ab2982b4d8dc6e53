/**
 * The gateway as an OAuth 2.1 resource server for `/mcp` (docs/api.md#mcp-endpoint): who it is (the
 * resource, `<PUBLIC_API_URL>/mcp`), who issues its tokens (the developer portal, PORTAL_URL), its
 * RFC 9728 metadata (served at the path form and the root form of the well-known URI), and the
 * `WWW-Authenticate` challenge every 401 at `/mcp` carries, so a client can discover all of it from
 * one refused request.
 */
import type { FastifyInstance } from "fastify";

export const MCP_SCOPE = "mcp";
export const METADATA_PATH = "/.well-known/oauth-protected-resource";

export interface ProtectedResource {
  /** `<PUBLIC_API_URL>/mcp`, byte for byte what tokens must name as their audience. */
  readonly resource: string;
  /** The authorization server's issuer (PORTAL_URL). */
  readonly issuer: string;
  /** The path form of the metadata URL, named in every challenge. */
  readonly metadataUrl: string;
}

export function protectedResource(publicApiUrl: string, issuer: string): ProtectedResource {
  const base = publicApiUrl.replace(/\/+$/, "");
  return {
    resource: `${base}/mcp`,
    issuer: issuer.replace(/\/+$/, ""),
    metadataUrl: `${base}${METADATA_PATH}/mcp`,
  };
}

/** RFC 6750 challenge; `error` says why a credential that was sent is refused. */
export function challenge(resource: ProtectedResource, error?: { code: string; description: string }) {
  const parts = [`resource_metadata="${resource.metadataUrl}"`, `scope="${MCP_SCOPE}"`];
  if (error)
    parts.unshift(`error="${error.code}"`, `error_description="${error.description.replace(/["\\]/g, "")}"`);
  return `Bearer ${parts.join(", ")}`;
}

export function registerProtectedResourceMetadata(app: FastifyInstance, resource: ProtectedResource) {
  const document = JSON.stringify({
    resource: resource.resource,
    authorization_servers: [resource.issuer],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ["header"],
    resource_name: "Reddit Data API (MCP)",
    resource_documentation: `${resource.resource.slice(0, -"/mcp".length)}/docs`,
  });
  // Browser-based clients (the MCP Inspector's web page) read it across origins.
  const send = async (_request: unknown, reply: import("fastify").FastifyReply) =>
    reply.type("application/json; charset=utf-8").header("access-control-allow-origin", "*").send(document);
  app.get(`${METADATA_PATH}/mcp`, send);
  app.get(METADATA_PATH, send);
}
