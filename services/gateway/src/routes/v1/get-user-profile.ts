/** GET /v1/users/{name} (spec §4, getUserProfile): validated by OPERATIONS.getUserProfile, 1 credit, served by its adapter. */
import { OPERATIONS } from "@rda/contracts";
import { dataRoute } from "../../http/data-route.ts";

export const getUserProfile = dataRoute(OPERATIONS.getUserProfile);
