/**
 * Signing up, signing in and out. Both email forms send a one-time link (sign-in.ts); the link opens
 * a confirmation page whose button uses it, so a mail scanner that fetches links cannot spend it.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { clearSessionCookie, setDeviceCookie, setSessionCookie } from "../http/cookies.ts";
import { field, noticeFor } from "../http/forms.ts";
import { DEFAULT_NEXT, safeNextPath } from "../http/next-path.ts";
import { renderPage, sendPageError, waitText } from "../http/render.ts";
import { linkValidMinutes, sendSignInLink, signInWithLink } from "../sign-in.ts";
import { DEVICE_TTL_SECONDS } from "../store/devices.ts";
import { normaliseEmail } from "../store/email-address.ts";

type Intent = "signup" | "login";

const FORMS = {
  signup: {
    title: "Create an account",
    nav: "signup",
    heading: "Create your account",
    lead: "Enter your email address. We send you a link to confirm it, and opening it creates your account. There is no password.",
    button: "Email me a link",
    action: "/signup",
    otherPrompt: "Already have an account?",
    otherLink: "Sign in",
    otherHref: "/login",
  },
  login: {
    title: "Sign in",
    nav: "login",
    heading: "Sign in",
    lead: "Enter the email address of your account and we send you a one-time sign-in link.",
    button: "Email me a sign-in link",
    action: "/login",
    otherPrompt: "New here?",
    otherLink: "Create an account",
    otherHref: "/signup",
  },
} as const;

export function emailFormPage(ctx: PortalContext, intent: Intent) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const next = safeNextPath(field(request.query, "next"));
    if (request.signedIn) return reply.redirect(next, 303);
    return renderPage(ctx, reply, "email-form", {
      ...FORMS[intent],
      email: "",
      next,
      notice: noticeFor(request.query),
    });
  };
}

export function requestLink(ctx: PortalContext, intent: Intent) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const next = safeNextPath(field(request.body, "next"));
    if (request.signedIn) return reply.redirect(next, 303);
    const typed = field(request.body, "email") ?? "";
    const email = normaliseEmail(typed);
    if (!email.ok) {
      const fieldError = "Enter your email address, like name@example.com.";
      return renderPage(ctx, reply, "email-form", { ...FORMS[intent], email: typed, next, fieldError }, 400);
    }
    const device = await ctx.devices.knownFor(request.cookies[ctx.cookies.device], email.value);
    const admitted = await ctx.mailLimits.allowSignInMail(email.value, request.ip, device);
    if (!admitted.ok) {
      const { scope, retryAfterSeconds } = admitted.error;
      return sendPageError(ctx, reply, scope === "address" ? "mail_limit_address" : "mail_limit_client", {
        retryAfterSeconds,
        detail: waitText(retryAfterSeconds),
      });
    }
    const sent = await sendSignInLink(ctx, email.value, next);
    if (!sent.ok)
      return sendPageError(ctx, reply, "mail_unavailable", { internal: sent.error, retryAfterSeconds: 60 });
    return renderPage(ctx, reply, "check-email", {
      title: "Check your inbox",
      email: email.value,
      validMinutes: linkValidMinutes(ctx),
    });
  };
}

export function confirmLinkPage(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const token = field(request.query, "token") ?? "";
    const link = await ctx.links.peek(token);
    if (!link.ok) return linkRefused(ctx, reply, link.error);
    const hasAccount = (await ctx.accounts.findIdByEmail(link.value.email)) !== null;
    return renderPage(ctx, reply, "confirm-link", {
      title: hasAccount ? "Sign in" : "Confirm your address",
      heading: hasAccount ? "Sign in" : "Confirm your address",
      button: hasAccount ? "Sign in" : "Confirm and create my account",
      email: link.value.email,
      token,
    });
  };
}

export function useLink(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const outcome = await signInWithLink(ctx, field(request.body, "token") ?? "");
    if (!outcome.ok) return linkRefused(ctx, reply, outcome.error);
    // A new session for this sign-in, whatever was there before (no session fixation).
    if (request.signedIn) await ctx.sessions.end(request.signedIn.id);
    setSessionCookie(reply, ctx.cookies, outcome.value.sessionId, ctx.settings.sessionTtlMs);
    const device = await ctx.devices.remember(
      request.cookies[ctx.cookies.device],
      outcome.value.account.email,
    );
    setDeviceCookie(reply, ctx.cookies, device, DEVICE_TTL_SECONDS);
    const next =
      outcome.value.created && outcome.value.next === DEFAULT_NEXT ? "/keys?welcome=1" : outcome.value.next;
    return reply.redirect(next, 303);
  };
}

function linkRefused(ctx: PortalContext, reply: FastifyReply, problem: "unknown_or_used" | "expired") {
  reply.errorCode = `link_${problem}`;
  const reason =
    problem === "expired"
      ? "This sign-in link has expired."
      : "This sign-in link was already used, or is not complete.";
  return renderPage(
    ctx,
    reply,
    "link-invalid",
    { title: "This link does not work any more", reason, validMinutes: linkValidMinutes(ctx) },
    410,
  );
}

export function logOut(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.signedIn) await ctx.sessions.end(request.signedIn.id);
    clearSessionCookie(reply, ctx.cookies);
    return reply.redirect("/login?done=logged-out", 303);
  };
}

export function logOutEverywhere(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = request.signedIn;
    if (!signedIn) return reply.redirect("/login", 303);
    const ended = await ctx.sessions.endAll(signedIn.accountId);
    request.log.info({ account_id: signedIn.accountId, sessions: ended }, "logged out everywhere");
    clearSessionCookie(reply, ctx.cookies);
    return reply.redirect("/login?done=logged-out-everywhere", 303);
  };
}
