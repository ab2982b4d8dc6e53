import type { FastifyInstance } from "fastify";
import { sendData, sendError } from "../http/responses.ts";
import { aggregateItems, readAggregateRequest } from "../query/aggregate.ts";
import type { Query } from "../query/params.ts";
import { readCommentSearch, searchComments } from "../query/search-comments.ts";
import { readPostSearch, searchPosts } from "../query/search-posts.ts";
import type { SimDeps } from "./deps.ts";
import { readerFor } from "./deps.ts";

/** The aggregate's own parameters; every other one is a search filter. */
const AGGREGATE_PARAMS = ["aggregate", "frequency", "limit", "min_count", "sort"];

export function registerAggregateRoutes(app: FastifyInstance, deps: SimDeps): void {
  const { corpus } = deps;
  app.get("/api/posts/search/aggregate", (request, reply) => {
    const { own, filters } = split(request.query as Query);
    const reader = readerFor(deps, own);
    const filterReader = readerFor(deps, filters);
    const aggregate = readAggregateRequest(reader);
    const search = readPostSearch(filterReader);
    const error = reader.error ?? filterReader.error;
    if (error || aggregate === undefined) return void sendError(reply, 400, error ?? "");
    const all = { ...search, limit: Number.MAX_SAFE_INTEGER, sort: "asc" as const };
    const items = searchPosts(deps.renderer, all, filterReader.nowSeconds);
    sendData(
      reply,
      aggregateItems(corpus, items, aggregate, {
        created: (p) => (corpus.posts.created[p] as number) + corpus.anchor,
        author: (p) => corpus.posts.author[p] as number,
        sub: (p) => corpus.posts.sub[p] as number,
      }),
    );
  });

  app.get("/api/comments/search/aggregate", (request, reply) => {
    const { own, filters } = split(request.query as Query);
    const reader = readerFor(deps, own);
    const filterReader = readerFor(deps, filters);
    const aggregate = readAggregateRequest(reader);
    const search = readCommentSearch(filterReader);
    const error = reader.error ?? filterReader.error;
    if (error || aggregate === undefined) return void sendError(reply, 400, error ?? "");
    const all = { ...search, limit: Number.MAX_SAFE_INTEGER, sort: "asc" as const };
    const items = searchComments(corpus, all, filterReader.nowSeconds);
    sendData(
      reply,
      aggregateItems(corpus, items, aggregate, {
        created: (c) => (corpus.comments.created[c] as number) + corpus.anchor,
        author: (c) => corpus.comments.author[c] as number,
        sub: (c) => corpus.posts.sub[corpus.comments.post[c] as number] as number,
      }),
    );
  });
}

function split(query: Query): { own: Query; filters: Query } {
  const own: Record<string, unknown> = {};
  const filters: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query ?? {})) {
    (AGGREGATE_PARAMS.includes(name) ? own : filters)[name] = value;
  }
  return { own, filters };
}
