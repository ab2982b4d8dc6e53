import type { FastifyInstance } from "fastify";
import { sendError, sendJsonItems } from "../http/responses.ts";
import { SELECTABLE } from "../query/fields.ts";
import { readIds } from "../query/ids.ts";
import { findPost } from "../query/lookup.ts";
import { readPostSearch, searchPosts } from "../query/search-posts.ts";
import { exclusiveBounds, ingestedLate } from "../quirks/data-quirks.ts";
import type { SimDeps } from "./deps.ts";
import { readerFor } from "./deps.ts";

export function registerPostRoutes(app: FastifyInstance, deps: SimDeps): void {
  app.get("/api/posts/search", (request, reply) => {
    const reader = readerFor(deps, request.query);
    const search = exclusiveBounds(readPostSearch(reader), deps.quirks);
    if (reader.error) return void sendError(reply, 400, reader.error);
    const now = reader.nowSeconds;
    const { posts, anchor, seed } = deps.corpus;
    const notYet = ingestedLate(deps.quirks, seed, "post", posts.created, anchor, now);
    const rows = searchPosts(deps.renderer, search, now, notYet);
    sendJsonItems(
      reply,
      rows.map((p) => deps.renderer.postJson(p, now, search.output)),
    );
  });

  app.get("/api/posts/ids", (request, reply) => {
    const reader = readerFor(deps, request.query);
    const ids = readIds(reader, "t3");
    const output = { fields: reader.fields(SELECTABLE.posts), md2html: reader.bool("md2html") };
    if (reader.error || ids === undefined) return void sendError(reply, 400, reader.error ?? "");
    const now = reader.nowSeconds;
    const found = ids.map((id) => findPost(deps.corpus, id, now)).filter((p) => p >= 0);
    sendJsonItems(
      reply,
      found.map((p) => deps.renderer.postJson(p, now, output)),
    );
  });
}
