/** Response data of GET /v1/users/search and GET /v1/activity (docs/api.md#amendments-to-the-original-contract). */
import { z } from "zod";
import { userProfileSchema } from "./responses.ts";

export const userSearchDataSchema = z.array(userProfileSchema);

export const activityBucketSchema = z
  .object({
    start: z.number().int().meta({ description: "Start of the bucket, epoch seconds (UTC)." }),
    count: z.number().int().min(0).meta({ description: "Items created in the bucket, within the window." }),
    settled: z.boolean().meta({
      description:
        "False while part of the bucket is younger than 36 hours: the archive fetches every item a second time about 36 h after creation, so items deleted or removed in that time can still change the count.",
    }),
  })
  .meta({ id: "ActivityBucket" });

export const activitySchema = z
  .object({
    kind: z.enum(["posts", "comments"]),
    interval: z.enum(["hour", "day", "week"]),
    after: z.number().int().meta({ description: "Start of the window (exclusive), epoch seconds." }),
    before: z.number().int().meta({ description: "End of the window (exclusive), epoch seconds." }),
    source: z.enum(["aggregate", "search"]).meta({
      description:
        "How the counts were made: `aggregate` (without `q`), the archive's own counts per bucket; `search` (with `q`, whose exact-phrase match the archive cannot count), by reading the window's items in one upstream page and counting those that contain the phrase.",
    }),
    total: z.number().int().min(0).meta({ description: "Sum of the bucket counts." }),
    buckets: z.array(activityBucketSchema).meta({
      description: "Every bucket of the window in time order, empty ones included (count 0).",
    }),
    empty_unconfirmed: z.boolean().optional().meta({
      description:
        "With `source: search` only. True when the archive's one page for the window held no item at all: the archive sometimes answers an empty page that is not really empty, and the one credit pays for one read, so it was not asked again. Ask again (1 credit) to confirm an empty window; false when the page held items.",
    }),
  })
  .meta({ id: "Activity" });
export type Activity = z.infer<typeof activitySchema>;
