/**
 * The one email the portal sends: a one-time link. Its words depend on whether the address already
 * has an account (sign in) or not (confirm the address to create one); the page the requester sees
 * is the same either way.
 */
import type { OutgoingMail } from "./mailer.ts";

export interface SignInEmail {
  readonly to: string;
  readonly link: string;
  readonly hasAccount: boolean;
  readonly validMinutes: number;
}

const PRODUCT = "Reddit Data API";

export function signInEmail(email: SignInEmail): OutgoingMail {
  const action = email.hasAccount ? "Sign in" : "Confirm your address";
  const intro = email.hasAccount
    ? `Use this link to sign in to the ${PRODUCT} developer portal:`
    : `Use this link to confirm your address and create your ${PRODUCT} account:`;
  const note = `The link works once and expires in ${email.validMinutes} minutes. If you did not ask for it, ignore this email: nothing happens without the link.`;
  return {
    to: email.to,
    subject: email.hasAccount ? `Your sign-in link for ${PRODUCT}` : `Confirm your email for ${PRODUCT}`,
    text: `${intro}\n\n${email.link}\n\n${note}\n`,
    html: [
      `<p>${intro}</p>`,
      `<p><a href="${escapeHtml(email.link)}">${action}</a></p>`,
      `<p>Or paste this address into your browser:<br>${escapeHtml(email.link)}</p>`,
      `<p>${note}</p>`,
    ].join("\n"),
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
