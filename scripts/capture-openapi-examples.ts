/**
 * Captures the OpenAPI document's example requests and responses from the real stack: the whole
 * stack runs in-process over the upstream simulator (seed 42), each operation is called once through
 * the gateway with a fresh key, and the request's parameters and the 200 body are written to
 * packages/contracts/src/openapi-examples.json. Run it again when the simulator's objects change:
 *
 *   pnpm exec tsx scripts/capture-openapi-examples.ts
 *
 * (Redis and NATS must be running, as for the tests.) The contracts' tests check every example
 * against its operation's schemas, so a stale file fails the build rather than the reader.
 */
import { writeFile } from "node:fs/promises";
import { OPERATIONS, type OperationName } from "@rda/contracts";
import { startStack } from "../test/support/stack.ts";

const OUTPUT = new URL("../packages/contracts/src/openapi-examples.json", import.meta.url);

type Params = Record<string, string | number>;

const stack = await startStack();
try {
  const { key } = await stack.createKey({ credits: 333 });
  const call = async (operation: OperationName, params: Params) => {
    let path: string = OPERATIONS[operation].path;
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      if (path.includes(`{${name}}`)) path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
      else query.set(name, String(value));
    }
    const search = query.toString();
    const response = await fetch(`${stack.gatewayUrl}${path}${search ? `?${search}` : ""}`, {
      headers: { "x-api-key": key },
    });
    if (response.status !== 200) throw new Error(`${operation} answered ${response.status}`);
    return { params, response: (await response.json()) as Record<string, unknown> };
  };
  const search = await call("searchSubreddits", { q: "typesc" });
  const community = (search.response.data as { name: string }[])[0]!.name;
  const posts = await call("listPosts", { subreddit: community, limit: 3, before: "1d" });
  const examples = {
    listPosts: posts,
    listComments: await call("listComments", { subreddit: community, limit: 3, before: "1d" }),
    getCommentTree: await call("getCommentTree", {
      post_id: `t3_${await busyPost(call, community)}`,
      limit: 3,
    }),
    searchSubreddits: search,
    getSubredditRules: await call("getSubredditRules", { name: community }),
    getUserProfile: await indexedUser(call, community),
    searchUsers: await call("searchUsers", { author_prefix: "b", min_karma: 100, limit: 2 }),
    getActivity: await call("getActivity", {
      subreddit: community,
      interval: "day",
      after: "2026-11-01",
      before: "2026-11-04",
    }),
    getAccount: await call("getAccount", {}),
  };
  await writeFile(OUTPUT, `${JSON.stringify(examples, null, 2)}\n`);
  process.stdout.write(`wrote ${OUTPUT.pathname}\n`);
} finally {
  await stack.stop();
}

/** The profile of the first author of a community's recent posts whom the archive's user index knows. */
async function indexedUser(
  call: (operation: OperationName, params: Params) => Promise<{ response: Record<string, unknown> }>,
  community: string,
) {
  const page = await call("listPosts", { subreddit: community, limit: 100, fields: "author" });
  const posts = page.response.data as { author: string }[];
  for (const { author } of posts) {
    const profile = await call("getUserProfile", { name: author });
    if ((profile.response.data as { user: unknown }).user !== null) return profile;
  }
  throw new Error("none of the example posts' authors has a profile");
}

/** A post whose thread is longer than the example's tree limit, so the example shows a `more` stub. */
async function busyPost(
  call: (operation: OperationName, params: Params) => Promise<{ response: Record<string, unknown> }>,
  community: string,
): Promise<string> {
  const page = await call("listPosts", { subreddit: community, limit: 100, before: "3d" });
  const posts = page.response.data as { id: string; num_comments: number }[];
  const busy = posts.find((post) => post.num_comments >= 5 && post.num_comments <= 12);
  if (!busy) throw new Error(`no post in r/${community} has 5 to 12 comments`);
  return busy.id;
}
