/**
 * A notice as an email, in the portal's plain words: the paragraphs, a link where there is one,
 * and a last line: for optional kinds, how to switch them off, with a one-click link that needs no
 * sign-in (also in the `List-Unsubscribe` headers mail programs show as a button, RFC 8058);
 * receipts and payment problems say they are always sent.
 */
import type { OutgoingMail } from "../mail/mailer.ts";
import { NOTICE_KINDS, type Notice } from "./notice-kinds.ts";

export function noticeEmail(
  to: string,
  notice: Notice,
  portalUrl: string,
  unsubscribeUrl?: string,
): OutgoingMail {
  const settingsUrl = `${portalUrl}/notifications`;
  const optional = NOTICE_KINDS[notice.kind].optional;
  const footer = !optional
    ? { text: "This notice is about money that moved, so it is always sent.", link: "Your notice settings" }
    : unsubscribeUrl
      ? { text: "You get this because notices of this kind are on.", link: "Stop notices of this kind" }
      : { text: "You get this because notices of this kind are on.", link: "Switch them off" };
  const footerUrl = optional && unsubscribeUrl ? unsubscribeUrl : settingsUrl;
  const link = notice.link ? [`${notice.link.text}: ${notice.link.url}`] : [];
  const text = [...notice.paragraphs, ...link, `${footer.text} ${footer.link}: ${footerUrl}`].join("\n\n");
  const html = [
    ...notice.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    ...(notice.link
      ? [`<p><a href="${escapeHtml(notice.link.url)}">${escapeHtml(notice.link.text)}</a></p>`]
      : []),
    `<p style="color:#555">${escapeHtml(footer.text)} <a href="${escapeHtml(footerUrl)}">${escapeHtml(footer.link)}</a></p>`,
  ].join("\n");
  const headers =
    optional && unsubscribeUrl
      ? { "List-Unsubscribe": `<${unsubscribeUrl}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" }
      : undefined;
  return { to, subject: notice.subject, text: `${text}\n`, html, ...(headers && { headers }) };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
