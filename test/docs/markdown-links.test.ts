/**
 * The repository's Markdown must stand on its own in a fresh clone: every relative link resolves to a
 * tracked file inside the repository, and every #anchor into a Markdown file names a heading there.
 * Absolute URLs and anything inside code (fenced blocks, inline spans) are not links.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, posix, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

interface Link {
  readonly file: string;
  readonly line: number;
  readonly target: string;
}

function trackedFiles(): string[] {
  const output = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" });
  return output.split("\0").filter((path) => path !== "");
}

/** Lines outside fenced code blocks, numbered from 1. */
function linesOutsideFences(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | undefined;
  text.split("\n").forEach((line, index) => {
    const marker = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence === undefined) {
      if (marker) fence = marker[1];
      else lines.push({ line: index + 1, text: line });
    } else if (marker && marker[1]!.startsWith(fence) && marker[2]!.trim() === "") {
      fence = undefined;
    }
  });
  return lines;
}

function linksIn(file: string, text: string): Link[] {
  const links: Link[] = [];
  for (const { line, text: raw } of linesOutsideFences(text)) {
    // Inline code is blanked rather than removed, so a link whose text is code is still found.
    const prose = raw.replace(/(`+).*?\1/g, (code) => " ".repeat(code.length));
    for (const match of prose.matchAll(/\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ file, line, target: match[1]! });
    }
  }
  return links;
}

/** GitHub's heading anchor: lowercase, punctuation other than `-` and `_` dropped, spaces to `-`. */
function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a file's headings produce; repeated headings get `-1`, `-2`, … as on GitHub. */
function anchorsIn(text: string): Set<string> {
  const anchors = new Set<string>();
  for (const { text: line } of linesOutsideFences(text)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = githubSlug(heading.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1"));
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n += 1) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

const isAbsoluteUrl = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** The repository path a link points to (`..` first when it leaves the repository), and its anchor. */
function resolveLink(link: Link): { path: string; anchor: string | undefined } {
  const [rawPath = "", anchor] = link.target.split("#", 2);
  const path = decodeURIComponent(rawPath);
  if (path === "") return { path: link.file, anchor };
  const fromRoot = path.startsWith("/") ? path.slice(1) : posix.join(posix.dirname(link.file), path);
  return { path: posix.normalize(fromRoot).replace(/\/$/, ""), anchor };
}

const leavesRepo = (link: Link) => /^\.\.(\/|$)/.test(resolveLink(link).path);

/** What is wrong with one link, or undefined when it resolves. */
function problemWith(link: Link, tracked: ReadonlySet<string>, read: (path: string) => string) {
  const { path, anchor } = resolveLink(link);
  if (leavesRepo(link)) return "points outside the repository";
  const isDirectory = [...tracked].some((file) => file.startsWith(`${path}/`));
  if (!tracked.has(path) && !isDirectory) return `no tracked file at ${path}`;
  if (anchor && path.endsWith(".md") && !anchorsIn(read(path)).has(anchor)) {
    return `no heading #${anchor} in ${path}`;
  }
  return undefined;
}

function allLinks(): { links: Link[]; tracked: Set<string>; read: (path: string) => string } {
  const tracked = new Set(trackedFiles());
  const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
  const links = [...tracked]
    .filter((path) => path.endsWith(".md"))
    .flatMap((file) => linksIn(file, read(file)))
    .filter((link) => !isAbsoluteUrl(link.target));
  return { links, tracked, read };
}

describe("relative links in tracked Markdown files", () => {
  it("resolve to a tracked file inside the repository and to an existing heading when they name an #anchor", () => {
    const { links, tracked, read } = allLinks();
    const problems = links.flatMap((link) => {
      const problem = problemWith(link, tracked, read);
      return problem ? [`${link.file}:${link.line} (${link.target}): ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });
});

describe("githubSlug", () => {
  it("lowercases, turns spaces into hyphens and drops punctuation except - and _", () => {
    expect(githubSlug("Amendments to the original contract")).toBe("amendments-to-the-original-contract");
    expect(githubSlug("Files in deploy/README.md")).toBe("files-in-deployreadmemd");
    expect(githubSlug("`after`/`before` — forms_ok")).toBe("afterbefore--forms_ok");
  });

  it("numbers repeated headings -1, -2 in order", () => {
    expect([...anchorsIn("# Notes\n## Notes\n### Notes\n```\n# Notes\n```\n")]).toEqual([
      "notes",
      "notes-1",
      "notes-2",
    ]);
  });
});

describe("tracked files", () => {
  // The repository stands alone: its code, docs and tests cite only what a reader of it can open.
  // The patterns are assembled so that this file does not match them itself.
  const outsideReferences: readonly RegExp[] = [
    new RegExp(["\\.\\.", "shared"].join("/")),
    new RegExp(`spec ${"§"}`),
    new RegExp(`\\b(DESIGN|STYLE|TOOLING)${"\\.md"}`),
    new RegExp(`\\b[Ii]ssue #?${"\\d"}`),
  ];

  it("cite no document outside the repository and no tracker numbers", () => {
    const citing = trackedFiles()
      .filter((path) => path !== "pnpm-lock.yaml" && !path.endsWith(".png"))
      .flatMap((path) => {
        const text = readFileSync(join(ROOT, path), "utf8");
        return outsideReferences
          .filter((pattern) => pattern.test(text))
          .map((pattern) => `${path}: ${pattern}`);
      });
    expect(citing).toEqual([]);
  });
});
