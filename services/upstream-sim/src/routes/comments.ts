import type { FastifyInstance } from "fastify";
import { sendError, sendJsonItems } from "../http/responses.ts";
import { planTree, readTreeRequest } from "../query/comment-tree.ts";
import { SELECTABLE } from "../query/fields.ts";
import { readIds } from "../query/ids.ts";
import { findComment } from "../query/lookup.ts";
import { readCommentSearch, searchComments } from "../query/search-comments.ts";
import { exclusiveBounds, ingestedLate } from "../quirks/data-quirks.ts";
import { renderTree } from "../render/tree.ts";
import type { SimDeps } from "./deps.ts";
import { readerFor } from "./deps.ts";

export function registerCommentRoutes(app: FastifyInstance, deps: SimDeps): void {
  app.get("/api/comments/search", (request, reply) => {
    const reader = readerFor(deps, request.query);
    const search = exclusiveBounds(readCommentSearch(reader), deps.quirks);
    if (reader.error) return void sendError(reply, 400, reader.error);
    const now = reader.nowSeconds;
    const { comments, anchor, seed } = deps.corpus;
    const notYet = ingestedLate(deps.quirks, seed, "comment", comments.created, anchor, now);
    const rows = searchComments(deps.corpus, search, now, notYet);
    sendJsonItems(
      reply,
      rows.map((c) => deps.renderer.commentJson(c, now, search.output)),
    );
  });

  app.get("/api/comments/ids", (request, reply) => {
    const reader = readerFor(deps, request.query);
    const ids = readIds(reader, "t1");
    const output = { fields: reader.fields(SELECTABLE.comments), md2html: reader.bool("md2html") };
    if (reader.error || ids === undefined) return void sendError(reply, 400, reader.error ?? "");
    const now = reader.nowSeconds;
    const found = ids.map((id) => findComment(deps.corpus, id, now)).filter((c) => c >= 0);
    sendJsonItems(
      reply,
      found.map((c) => deps.renderer.commentJson(c, now, output)),
    );
  });

  /** No `fields` here: the upstream's tree endpoint ignores projections (docs/upstream.md#selectable-fields). */
  app.get("/api/comments/tree", (request, reply) => {
    const reader = readerFor(deps, request.query);
    const tree = readTreeRequest(reader);
    if (reader.error || tree === undefined) return void sendError(reply, 400, reader.error ?? "");
    if (deps.quirks.treeNeedsPrefix && !hasPostPrefix(request.query)) return void sendJsonItems(reply, []);
    const now = reader.nowSeconds;
    const plan = planTree(deps.corpus, tree, now);
    const nodes = plan === undefined ? "[]" : renderTree(deps.renderer, plan, tree, now);
    reply.type("application/json").send(`{"data":${nodes}}`);
  });
}

/** The strict profile's tree finds nothing for a bare `link_id` (profile.ts). */
function hasPostPrefix(query: unknown): boolean {
  const linkId = (query as Record<string, unknown> | undefined)?.link_id;
  return typeof linkId === "string" && /^t3_/i.test(linkId);
}
