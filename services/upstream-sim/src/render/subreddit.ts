import type { Subreddit } from "../corpus/types.ts";
import type { Json } from "./context.ts";

/** A subreddit object (docs/upstream.md#other-objects) with a handful of the other Reddit fields. */
export function buildSubreddit(sub: Subreddit): Json {
  return {
    id: sub.id,
    name: `t5_${sub.id}`,
    display_name: sub.name,
    display_name_prefixed: `r/${sub.name}`,
    title: sub.title,
    public_description: sub.publicDescription,
    description: sub.description,
    subscribers: sub.subscribers,
    created_utc: sub.createdUtc,
    created: sub.createdUtc,
    over18: sub.over18,
    retrieved_on: sub.retrievedOn,
    url: `/r/${sub.name}/`,
    subreddit_type: "public",
    lang: "en",
    quarantine: false,
    submission_type: sub.selfShare >= 0.99 ? "self" : "any",
    allow_images: sub.selfShare < 0.99,
    allow_videos: sub.selfShare < 0.99,
    link_flair_enabled: sub.flairs.length > 0,
    suggested_comment_sort: sub.suggestedSort,
    _meta: { ...sub.meta },
  };
}
