/**
 * Asking for a sign-in link and using one. Signing up and signing in are the same act: the address
 * gets a one-time link, and using it proves the address, signs in, and makes the account if there is
 * none yet. The requester is told the same thing whether or not the address has an account, and the
 * work done is the same (one lookup, one link, one email); only the email's wording differs.
 */
import { err, ok, type Result } from "@rda/contracts";
import type { PortalContext } from "./context.ts";
import { signInEmail } from "./mail/sign-in-email.ts";
import { LOGIN_LINK_TTL_MS } from "./settings.ts";
import type { Account } from "./store/accounts.ts";
import type { LinkProblem } from "./store/login-links.ts";

export function linkTtlMs(ctx: PortalContext): number {
  return ctx.settings.loginLinkTtlMs ?? LOGIN_LINK_TTL_MS;
}

export function linkValidMinutes(ctx: PortalContext): number {
  return Math.round(linkTtlMs(ctx) / 60_000);
}

export async function sendSignInLink(
  ctx: PortalContext,
  email: string,
  next: string,
): Promise<Result<void, string>> {
  const hasAccount = (await ctx.accounts.findIdByEmail(email)) !== null;
  const token = await ctx.links.issue({ email, next });
  const link = `${ctx.settings.publicUrl}/auth?token=${token}`;
  return ctx.mailer.send(signInEmail({ to: email, link, hasAccount, validMinutes: linkValidMinutes(ctx) }));
}

export interface SignedInOutcome {
  readonly account: Account;
  /** True when this link made the account (a first sign-in). */
  readonly created: boolean;
  readonly sessionId: string;
  readonly next: string;
}

/** Uses the link (once), makes the account if needed, and starts a session. */
export async function signInWithLink(
  ctx: PortalContext,
  token: string,
): Promise<Result<SignedInOutcome, LinkProblem>> {
  const link = await ctx.links.redeem(token);
  if (!link.ok) return err(link.error);
  const { account, created } = await ctx.accounts.findOrCreate(link.value.email);
  const sessionId = await ctx.sessions.start({ accountId: account.id, email: account.email });
  ctx.logger.info({ account_id: account.id, created }, "signed in with an email link");
  return ok({ account, created, sessionId, next: link.value.next });
}
