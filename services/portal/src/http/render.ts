/**
 * The one way a page is answered: its template with what every page needs (who is signed in, a CSRF
 * token for its forms, the support address), and the one way an error is answered, as a page or,
 * for the JSON endpoint, as `{error}`. (The htmx usage panel is the one template sent without the
 * layout: routes/keys.ts.)
 */
import type { FastifyReply } from "fastify";
import type { PortalContext } from "../context.ts";
import { PAGE_ERRORS, type PageErrorCode } from "./page-errors.ts";
import { words } from "./words.ts";

export type Nav =
  | "keys"
  | "connections"
  | "agents"
  | "billing"
  | "notifications"
  | "account"
  | "login"
  | "signup"
  | "";

export interface PageLocals {
  readonly title: string;
  readonly nav?: Nav;
  readonly [name: string]: unknown;
}

export async function renderPage(
  ctx: PortalContext,
  reply: FastifyReply,
  view: string,
  locals: PageLocals,
  status = 200,
): Promise<FastifyReply> {
  const html = await reply.viewAsync(`${view}.eta`, {
    session: reply.request.signedIn,
    csrf: reply.generateCsrf(),
    supportEmail: ctx.settings.supportEmail,
    nav: "",
    words,
    error: undefined,
    notice: undefined,
    ...locals,
  });
  return reply.code(status).type("text/html; charset=utf-8").send(html);
}

export interface ErrorOptions {
  /** Said after the catalog sentence, e.g. how long to wait. */
  readonly detail?: string;
  readonly retryAfterSeconds?: number;
  /** For the log only. */
  readonly internal?: string;
  readonly json?: boolean;
}

export async function sendPageError(
  ctx: PortalContext,
  reply: FastifyReply,
  code: PageErrorCode,
  options: ErrorOptions = {},
): Promise<FastifyReply> {
  const entry = PAGE_ERRORS[code];
  const message = options.detail ? `${entry.message} ${options.detail}` : entry.message;
  if (options.retryAfterSeconds !== undefined) reply.header("retry-after", String(options.retryAfterSeconds));
  reply.errorCode = code;
  if (options.internal || entry.status >= 500) {
    reply.request.log.warn({ error_code: code, reason: options.internal }, "request failed");
  }
  if (options.json)
    return reply.code(entry.status).type("application/json; charset=utf-8").send({ error: message });
  return renderPage(
    ctx,
    reply,
    "error",
    { title: entry.title, error: { title: entry.title, message } },
    entry.status,
  );
}

/** "in 42 minutes" / "in 1 minute" for Retry-After values shown to people. */
export function waitText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return `Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
}

declare module "fastify" {
  interface FastifyReply {
    /** The catalog code of a failed request, for the access log. */
    errorCode?: string;
    /** Origins besides the portal a form on this page may lead to (its CSP `form-action`). */
    formTargets?: readonly string[];
  }
}
