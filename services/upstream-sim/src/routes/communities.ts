import type { FastifyInstance } from "fastify";
import { sendData, sendError, sendJsonItems } from "../http/responses.ts";
import { project } from "../query/fields.ts";
import { readRulesRequest, readSubredditSearch, rulesFor, searchSubreddits } from "../query/subreddits.ts";
import { readUserSearch, searchUsers } from "../query/users.ts";
import { withNullDescriptions } from "../quirks/data-quirks.ts";
import type { SimDeps } from "./deps.ts";
import { readerFor } from "./deps.ts";

export function registerCommunityRoutes(app: FastifyInstance, deps: SimDeps): void {
  app.get("/api/subreddits/search", (request, reply) => {
    const reader = readerFor(deps, request.query);
    const search = readSubredditSearch(reader);
    if (reader.error) return void sendError(reply, 400, reader.error);
    const objects = searchSubreddits(deps.corpus, search).map(
      (sub) => deps.renderer.subreddits[sub.index] ?? {},
    );
    const shaped = search.fields ? objects.map((item) => project(item, search.fields ?? [])) : objects;
    sendJsonItems(
      reply,
      shaped.map((item) => JSON.stringify(item)),
    );
  });

  app.get("/api/subreddits/rules", (request, reply) => {
    const reader = readerFor(deps, request.query);
    const names = readRulesRequest(reader);
    if (reader.error || names === undefined) return void sendError(reply, 400, reader.error ?? "");
    const { seed } = deps.corpus;
    const rate = deps.quirks.nullRuleDescriptionRate;
    const entries = rulesFor(deps.corpus, names).map((entry) => ({
      subreddit: entry.subreddit,
      rules: withNullDescriptions(seed, rate, entry.subreddit, entry.rules),
    }));
    sendData(reply, entries);
  });

  app.get("/api/users/search", (request, reply) => {
    const reader = readerFor(deps, request.query);
    const search = readUserSearch(reader);
    if (reader.error) return void sendError(reply, 400, reader.error);
    sendData(reply, searchUsers(deps.corpus, search));
  });
}
