import type { Corpus } from "../corpus/types.ts";
import { Messages } from "../errors.ts";
import { findComment, findPost, parseId } from "./lookup.ts";
import type { ParamReader } from "./params.ts";
import type { Slice } from "./slices.ts";
import { ThreadView } from "./thread-view.ts";

/** Parameters of /api/comments/tree (docs/upstream.md#endpoints-we-use). */
export interface TreeRequest {
  readonly linkId: number;
  readonly parentId?: number | undefined;
  readonly limit: number;
  readonly startBreadth: number;
  readonly startDepth: number;
  readonly md2html: boolean;
}

export function readTreeRequest(reader: ParamReader): TreeRequest | undefined {
  const linkText = reader.word("link_id");
  if (linkText === undefined) return reader.fail(Messages.missingParam("link_id"));
  const linkId = parseId(linkText, "t3");
  if (linkId === undefined) return reader.fail(Messages.invalidParam("link_id", "must be a base36 post id"));
  // A post fullname as parent (t3_...) reads as the whole thread, like an unset parent_id.
  const parentText = reader.word("parent_id")?.replace(/^t3_\w*$/i, "") || undefined;
  const parentId = parentText === undefined ? undefined : parseId(parentText, "t1");
  if (parentText !== undefined && parentId === undefined) {
    return reader.fail(Messages.invalidParam("parent_id", "must be a base36 comment id"));
  }
  return {
    linkId,
    parentId,
    limit: reader.limit(25_000, 50, false),
    startBreadth: reader.int("start_breadth", 0) ?? 4,
    startDepth: reader.int("start_depth", 0) ?? 4,
    md2html: reader.bool("md2html") ?? false,
  };
}

/** The shape of the loaded tree: which comments are shown; the rest collapse into `more` stubs. */
export interface TreePlan {
  readonly post: number;
  readonly view: ThreadView;
  /** The first level: top-level comments, or the `parent_id` comment alone. */
  readonly roots: Slice;
  /** Shown comments, or null when the whole tree fits in `limit`. */
  readonly shown: ReadonlySet<number> | null;
}

export function planTree(corpus: Corpus, request: TreeRequest, now: number): TreePlan | undefined {
  const post = findPost(corpus, request.linkId, now);
  if (post < 0) return undefined;
  const view = new ThreadView(corpus, post, now);
  const roots = rootsOf(corpus, view, post, request, now);
  if (roots === undefined) return undefined;
  const fits = view.sliceTotal(roots) <= request.limit;
  return { post, view, roots, shown: fits ? null : selectShown(view, roots, request) };
}

function rootsOf(
  corpus: Corpus,
  view: ThreadView,
  post: number,
  request: TreeRequest,
  now: number,
): Slice | undefined {
  if (request.parentId === undefined) return view.topLevel(post);
  const comment = findComment(corpus, request.parentId, now);
  if (comment < 0 || corpus.comments.post[comment] !== post) return undefined;
  return { items: Int32Array.of(comment), lo: 0, hi: 1 };
}

/**
 * Upstream: "If limit is exceeded, comments are collapsed ... start_breadth and
 * start_depth decrease by 1 for each depth level." Levels are filled breadth
 * first, so top-level comments come before deep replies; each parent shows its
 * first (oldest) children up to the level's breadth, until `limit` is spent.
 */
function selectShown(view: ThreadView, roots: Slice, request: TreeRequest): Set<number> {
  const shown = new Set<number>();
  let level: Slice[] = [roots];
  for (let depth = 0; depth < request.startDepth && level.length > 0; depth++) {
    const breadth = request.startBreadth - depth;
    const next: Slice[] = [];
    for (const siblings of level) {
      const take = Math.min(siblings.hi - siblings.lo, breadth, request.limit - shown.size);
      for (let k = siblings.lo; k < siblings.lo + take; k++) {
        const comment = siblings.items[k] as number;
        shown.add(comment);
        next.push(view.children(comment));
      }
    }
    level = next;
  }
  return shown;
}
