/** GET /v1/subreddits/{name}/rules (spec §4, getSubredditRules): validated by OPERATIONS.getSubredditRules, 1 credit, served by its adapter. */
import { OPERATIONS } from "@rda/contracts";
import { dataRoute } from "../../http/data-route.ts";

export const getSubredditRules = dataRoute(OPERATIONS.getSubredditRules);
