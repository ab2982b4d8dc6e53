/**
 * Cross-cutting request handling: CSRF on every form post, security headers, no caching of
 * anything personal, one access line per request (the route pattern, never the raw URL: sign-in
 * tokens travel in query strings), and the catalog answer for unknown paths and for failures.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import type { PageErrorCode } from "./page-errors.ts";
import { sendPageError } from "./render.ts";

/**
 * `formTargets`: origins a form of the page may end up at besides this site: the payment page a
 * checkout form redirects to, the app's redirect on the OAuth consent page.
 */
export function contentSecurityPolicy(formTargets: readonly string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    ["form-action 'self'", ...formTargets].join(" "),
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join("; ");
}

/**
 * The security headers of every answer the portal gives through fastify: pages, error pages, the
 * OAuth server's pages that fastify renders, static files, JSON. Registered on the root instance, so
 * no route and no scope is without them. The OAuth provider's own answers bypass fastify and get the
 * same from oauth/mount.ts.
 */
export function installSecurityHeaders(app: FastifyInstance, ctx: PortalContext): void {
  const checkoutOrigins = ctx.payments?.checkoutOrigins ?? [];
  app.addHook("onSend", async (request, reply) => {
    reply.header(
      "content-security-policy",
      contentSecurityPolicy([...checkoutOrigins, ...(reply.formTargets ?? [])]),
    );
    reply.header("x-content-type-options", "nosniff");
    reply.header("x-frame-options", "DENY");
    // Sign-in links carry their token in the URL: no page of ours may pass it on as a Referer.
    reply.header("referrer-policy", "no-referrer");
    if (ctx.cookies.secure) reply.header("strict-transport-security", "max-age=31536000");
    if (!request.url.startsWith("/static/")) reply.header("cache-control", "no-store");
  });
}

export function installHooks(app: FastifyInstance, ctx: PortalContext): void {
  // Bodies are parsed before preHandler, so the form's _csrf field is there to check.
  app.addHook("preHandler", (request, reply, done) => {
    if (request.method === "GET" || request.method === "HEAD") return done();
    app.csrfProtection(request, reply, done);
  });
  app.addHook("onResponse", async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? "unmatched",
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        error_code: reply.errorCode,
        account_id: request.signedIn?.accountId,
      },
      "request completed",
    );
  });
  app.setNotFoundHandler(async (request, reply) =>
    sendPageError(ctx, reply, request.method === "GET" ? "not_found" : "method_not_allowed", {
      json: wantsJson(request),
    }),
  );
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const code = errorCode(ctx, error);
    return sendPageError(ctx, reply, code, {
      json: wantsJson(request),
      internal:
        code === "internal" || code === "store_unavailable" ? (error.stack ?? error.message) : undefined,
    });
  });
}

function errorCode(ctx: PortalContext, error: FastifyError): PageErrorCode {
  if (error.code?.startsWith("FST_CSRF")) return "csrf";
  if (error.statusCode === 413) return "payload_too_large";
  if (error.statusCode === 415 || error.statusCode === 400) return "bad_request";
  if (ctx.readiness().redis === false) return "store_unavailable";
  return "internal";
}

function wantsJson(request: FastifyRequest): boolean {
  return request.url.split("?")[0]?.endsWith(".json") ?? false;
}
