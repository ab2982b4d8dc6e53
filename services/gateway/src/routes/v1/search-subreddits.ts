/** GET /v1/subreddits/search (spec §4, searchSubreddits): validated by OPERATIONS.searchSubreddits, 1 credit, served by its adapter. */
import { OPERATIONS } from "@rda/contracts";
import { dataRoute } from "../../http/data-route.ts";

export const searchSubreddits = dataRoute(OPERATIONS.searchSubreddits);
