/** GET /v1/posts (spec §4, listPosts): validated by OPERATIONS.listPosts, 1 credit, served by its adapter. */
import { OPERATIONS } from "@rda/contracts";
import { dataRoute } from "../../http/data-route.ts";

export const listPosts = dataRoute(OPERATIONS.listPosts);
