/** GET /v1/comments (spec §4, listComments): validated by OPERATIONS.listComments, 1 credit, served by its adapter. */
import { OPERATIONS } from "@rda/contracts";
import { dataRoute } from "../../http/data-route.ts";

export const listComments = dataRoute(OPERATIONS.listComments);
