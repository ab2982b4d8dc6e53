/**
 * The authorization server's endpoints in the portal's fastify app. oidc-provider is a Koa app; each
 * of its routes is a fastify route here that hands the raw request to it untouched (its body unread:
 * the provider reads and bounds it), so every other path stays the portal's. RFC 8414 metadata is
 * served at `/.well-known/oauth-authorization-server`, the same document as OpenID discovery.
 *
 * Two policies sit in front: an authorization request without PKCE S256 is refused with a page, never
 * redirected to the client (a client that skips PKCE gets nothing sent to its redirect URI); and a
 * client address may register only so many clients an hour (429 with Retry-After past it).
 */
import type { ServerResponse } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from "fastify";
import type { KoaContextWithOIDC } from "oidc-provider";
import type { PortalContext } from "../context.ts";
import { field } from "../http/forms.ts";
import { sendPageError } from "../http/render.ts";
import { OAUTH_ROUTES } from "./provider.ts";

const DISCOVERY = "/.well-known/openid-configuration";

/** Each provider route and the methods it answers (OPTIONS: CORS preflights from browser clients). */
const HANDED_OFF: readonly [string, HTTPMethods[]][] = [
  [DISCOVERY, ["GET", "OPTIONS"]],
  [OAUTH_ROUTES.jwks, ["GET", "OPTIONS"]],
  [OAUTH_ROUTES.token, ["POST", "OPTIONS"]],
  [OAUTH_ROUTES.registration, ["OPTIONS"]],
  [OAUTH_ROUTES.revocation, ["POST", "OPTIONS"]],
  // Where the browser comes back after the consent page.
  [`${OAUTH_ROUTES.authorization}/:uid`, ["GET"]],
];

export function registerOAuthServer(app: FastifyInstance, ctx: PortalContext): void {
  app.register(async (scope) => {
    // The provider reads bodies itself.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));
    const callback = ctx.oauth.provider.callback();
    const handOff = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      securityHeaders(reply.raw);
      logWhenDone(request, reply.raw);
      await callback(request.raw, reply.raw);
    };
    for (const [url, method] of HANDED_OFF) scope.route({ method, url, handler: handOff });
    scope.route({
      method: ["GET", "OPTIONS"],
      url: "/.well-known/oauth-authorization-server",
      handler: (request, reply) => {
        request.raw.url = DISCOVERY;
        return handOff(request, reply);
      },
    });
    scope.post(OAUTH_ROUTES.registration, async (request, reply) => {
      const wait = await ctx.oauth.admitRegistration(request.ip);
      if (wait > 0) {
        return reply
          .code(429)
          .header("retry-after", String(wait))
          .header("cache-control", "no-store")
          .send({
            error: "too_many_requests",
            error_description: `too many client registrations from this address; retry in ${wait} s`,
          });
      }
      return handOff(request, reply);
    });
    scope.get(OAUTH_ROUTES.authorization, async (request, reply) => {
      const challenge = field(request.query, "code_challenge");
      const method = field(request.query, "code_challenge_method");
      if (!challenge || method !== "S256") {
        return sendPageError(ctx, reply, "oauth_pkce_required");
      }
      return handOff(request, reply);
    });
  });
}

/**
 * The portal's page headers on the provider's answers too (its error page, the form_post page, its
 * JSON), which bypass fastify's hooks. The policy has no form-action: the form_post page's form goes
 * to the app's own redirect URI (oidc-provider adds its inline script's hash to script-src). The
 * provider may still set its own Cache-Control (it sends no-store on tokens itself).
 */
function securityHeaders(response: ServerResponse) {
  response.setHeader(
    "content-security-policy",
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  );
  response.setHeader("x-content-type-options", "nosniff");
  response.setHeader("x-frame-options", "DENY");
  response.setHeader("referrer-policy", "no-referrer");
  response.setHeader("cache-control", "no-store");
}

/** One access line, as for every portal route: the route pattern, never the URL (it carries codes). */
function logWhenDone(request: FastifyRequest, response: ServerResponse) {
  response.once("finish", () => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? "unmatched",
        status: response.statusCode,
      },
      "request completed",
    );
  });
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);

/**
 * The page oidc-provider shows when it cannot send an error back to the client (an unknown client,
 * a redirect URI it never registered…): the portal's look, the error's own words.
 */
export function renderProviderError(ctx: KoaContextWithOIDC, out: Record<string, string>): void {
  const description = out.error_description ?? out.error ?? "the request could not be completed";
  ctx.type = "html";
  ctx.set("content-security-policy", "default-src 'self'; form-action 'none'; frame-ancestors 'none'");
  ctx.body = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>This app's sign-in request cannot be used · Reddit Data API developer portal</title>
<link rel="stylesheet" href="/static/portal.css"></head>
<body><main id="main">
<h1>This app's sign-in request cannot be used</h1>
<div class="notice error" role="alert"><p>${escapeHtml(description)} (${escapeHtml(out.error ?? "error")}).</p></div>
<p>Nothing was shared with the app. Go back to it and connect again; if this keeps happening, the app is not set up to use this service.</p>
<p><a href="/">The developer portal</a></p>
</main></body></html>`;
}
