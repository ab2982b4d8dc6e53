/**
 * A minimal markdown to HTML conversion for `md2html=true`, shaped like Reddit's
 * `selftext_html`/`body_html` wrapper. It covers what the generator writes:
 * paragraphs, quotes, bullet lists, bold and links.
 */
const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

const escapeHtml = (text: string): string => text.replace(/[&<>"]/g, (ch) => ESCAPES[ch] ?? ch);

function inline(text: string): string {
  return escapeHtml(text)
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '<a href="$2">$1</a>');
}

function block(paragraph: string): string {
  const lines = paragraph.split("\n");
  if (lines.every((line) => line.startsWith("* "))) {
    return `<ul>\n${lines.map((line) => `<li>${inline(line.slice(2))}</li>`).join("\n")}\n</ul>`;
  }
  if (paragraph.startsWith("> ")) return `<blockquote>\n<p>${inline(paragraph.slice(2))}</p>\n</blockquote>`;
  const heading = /^(#{1,6}) (.*)$/.exec(paragraph);
  if (heading) return `<h${heading[1]?.length}>${inline(heading[2] ?? "")}</h${heading[1]?.length}>`;
  return `<p>${inline(paragraph)}</p>`;
}

export function markdownToHtml(markdown: string): string | null {
  if (markdown === "") return null;
  const blocks = markdown.split(/\n{2,}/).map(block);
  return `<!-- SC_OFF --><div class="md">${blocks.join("\n")}</div><!-- SC_ON -->`;
}
