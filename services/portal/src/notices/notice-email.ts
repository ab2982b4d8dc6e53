/**
 * A notice as an email, in the portal's plain words: the paragraphs, a link where there is one,
 * and for optional kinds a last line saying how to switch them off (the notifications page).
 */
import type { OutgoingMail } from "../mail/mailer.ts";
import { NOTICE_KINDS, type Notice } from "./notice-kinds.ts";

export function noticeEmail(to: string, notice: Notice, portalUrl: string): OutgoingMail {
  const settingsUrl = `${portalUrl}/notifications`;
  const footer = NOTICE_KINDS[notice.kind].optional
    ? `You get this because notices of this kind are on. To stop them, switch them off: ${settingsUrl}`
    : `This notice is about money that moved, so it is always sent. Your notice settings: ${settingsUrl}`;
  const link = notice.link ? [`${notice.link.text}: ${notice.link.url}`] : [];
  const text = [...notice.paragraphs, ...link, footer].join("\n\n");
  const html = [
    ...notice.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    ...(notice.link
      ? [`<p><a href="${escapeHtml(notice.link.url)}">${escapeHtml(notice.link.text)}</a></p>`]
      : []),
    `<p style="color:#555">${escapeHtml(footer.replace(/: \S+$/, ""))}: <a href="${escapeHtml(settingsUrl)}">notice settings</a></p>`,
  ].join("\n");
  return { to, subject: notice.subject, text: `${text}\n`, html };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
