/**
 * GET /docs: the API reference, rendered in the browser by Scalar from GET /openapi.json, so the page
 * shows exactly the document the gateway serves. Unauthenticated and never charged, like the other
 * operational routes. Everything the page loads comes from this gateway: Scalar's bundle is served
 * from the installed package at /docs/js/scalar.js, its web fonts are left out (the page uses the
 * system's), and every feature that would call Scalar's own services is switched off.
 */
import scalarReference from "@scalar/fastify-api-reference";
import type { FastifyInstance } from "fastify";

export const DOCS_PREFIX = "/docs";

export async function registerDocs(app: FastifyInstance, openApiPath: string): Promise<void> {
  await app.register(scalarReference, {
    routePrefix: DOCS_PREFIX,
    configuration: {
      // Relative to the page (/docs/), so the reference still works behind a path prefix.
      url: `..${openApiPath}`,
      pageTitle: "Reddit Data API reference",
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: "never",
      agent: { disabled: true },
      mcp: { disabled: true },
      // The "test request" client would send requests through Scalar's public proxy by default.
      hideClientButton: true,
      hideTestRequestButton: true,
      defaultOpenAllTags: true,
    },
  });
}
