/** The pages that only read: the start page and the account page (billing: billing.ts). */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { noticeFor } from "../http/forms.ts";
import { renderPage, sendPageError } from "../http/render.ts";
import { requireSignIn } from "../http/session.ts";

export function homePage(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.signedIn) return reply.redirect("/keys", 303);
    return renderPage(ctx, reply, "home", { title: "Welcome" });
  };
}

export function accountPage(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const account = await ctx.accounts.get(signedIn.accountId);
    if (!account) return sendPageError(ctx, reply, "not_found");
    return renderPage(ctx, reply, "account", {
      title: "Your account",
      nav: "account",
      account,
      sessionDays: Math.round(ctx.settings.sessionTtlMs / 86_400_000),
      notice: noticeFor(request.query),
    });
  };
}
