/** GET /v1/comments/tree (spec §4, getCommentTree): validated by OPERATIONS.getCommentTree, 1 credit, served by its adapter. */
import { OPERATIONS } from "@rda/contracts";
import { dataRoute } from "../../http/data-route.ts";

export const getCommentTree = dataRoute(OPERATIONS.getCommentTree);
