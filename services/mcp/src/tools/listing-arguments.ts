/**
 * The arguments of search_posts and search_comments: the HTTP API's listing parameters, with
 * `fields` as a list of known names (an enum a model can read) that adds to the lean default.
 */
import { listCommentsParamsSchema, listPostsParamsSchema } from "@rda/contracts";
import type { z } from "zod";
import { DEFAULT_FIELDS, fieldsArgument, type ItemKind, selectedFields } from "../results/fields.ts";
import type { ToolArgs } from "./define-tool.ts";

export function listingInput(kind: ItemKind) {
  const params: z.ZodObject = kind === "post" ? listPostsParamsSchema : listCommentsParamsSchema;
  return params.safeExtend({ fields: fieldsArgument(kind) });
}

/** The upstream projects the fields, so only what the result shows crosses the wire. */
export function listingHttpParams(kind: ItemKind) {
  return (args: ToolArgs): ToolArgs => {
    const fields = selectedFields(DEFAULT_FIELDS[kind], args.fields as string[] | undefined);
    return { ...args, fields: fields.join(",") };
  };
}
