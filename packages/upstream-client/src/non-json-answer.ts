/**
 * An upstream answer whose body is not JSON, classified by status and content
 * (docs/upstream.md#errors-and-busy-answers). The upstream sits behind Cloudflare, so such a body is
 * usually one of its HTML pages:
 *
 *   - a 403, or a page saying the client is blocked: a block (a missing or refused User-Agent, or an
 *     address Cloudflare distrusts). Asking again gets the same page, so it is final and reported as
 *     `blocked`: refunded, counted, alerted on, and logged with what was seen;
 *   - 5xx and Cloudflare's 52x: trouble at the origin, worth another attempt;
 *   - any other 4xx page: final, asking again would not change it;
 *   - a 2xx or 3xx that is not JSON: most likely cut short in transit, worth another attempt.
 */

/** What an operator needs to recognise the page: its status, kind, and title or first words. */
export function describePage(status: number, text: string): string {
  const title = /<title[^>]*>([^<]{1,120})<\/title>/i.exec(text)?.[1]?.trim();
  const html = /^\s*<(!doctype|html)/i.test(text);
  const kind = html ? "an HTML page" : text.trim() === "" ? "an empty body" : "a body that is not JSON";
  const words = title ?? (html ? undefined : text.trim().slice(0, 80));
  return words ? `HTTP ${status} with ${kind}: "${words}"` : `HTTP ${status} with ${kind}`;
}

const BLOCK_PAGE = /you have been blocked|attention required|access denied|error code:? 10(0\d|1\d|20)/i;

export type NonJsonVerdict = "blocked" | "transient" | "unavailable";

export function classifyNonJson(status: number, text: string): NonJsonVerdict {
  if (status === 403 || (status >= 400 && status < 500 && BLOCK_PAGE.test(text))) return "blocked";
  if (status >= 500 || status < 400) return "transient";
  return "unavailable";
}
