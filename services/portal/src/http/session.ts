/**
 * Who is asking: the session named by the cookie, resolved once per request (before the handler),
 * and the guard that sends anyone without one to the sign-in page and back afterwards.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { safeNextPath } from "./next-path.ts";

export interface SignedIn {
  /** The raw session id from the cookie (never logged, never stored). */
  readonly id: string;
  readonly accountId: string;
  readonly email: string;
}

declare module "fastify" {
  interface FastifyRequest {
    signedIn?: SignedIn;
  }
}

export function installSessionHook(app: FastifyInstance, ctx: PortalContext): void {
  app.decorateRequest("signedIn", undefined);
  app.addHook("onRequest", async (request) => {
    if (request.url.startsWith("/static/") || request.url === "/livez" || request.url === "/readyz") return;
    const id = request.cookies[ctx.cookies.session];
    if (!id) return;
    const session = await ctx.sessions.resolve(id);
    if (session) request.signedIn = { id, ...session };
  });
}

/** The signed-in person, or undefined after answering with a redirect to the sign-in page. */
export function requireSignIn(request: FastifyRequest, reply: FastifyReply): SignedIn | undefined {
  if (request.signedIn) return request.signedIn;
  const next = safeNextPath(request.method === "GET" ? request.url : "/keys");
  void reply.redirect(`/login?next=${encodeURIComponent(next)}`, 303);
  return undefined;
}
