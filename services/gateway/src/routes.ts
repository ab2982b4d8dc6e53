/**
 * Every route the gateway serves, in one place. The eight data endpoints are one handler
 * driven by their OPERATIONS entry; the account endpoint has its own. The e2e tests check each route
 * against the OpenAPI document.
 */
import { OPERATIONS } from "@rda/contracts";
import { dataRoute } from "./http/data-route.ts";
import type { GatewayRoute } from "./http/route.ts";
import { getAccount } from "./routes/get-account.ts";

export { EXPORT_PATHS } from "./routes/exports.ts";
export { MCP_PREFIX } from "./routes/mcp-proxy.ts";
export { SYSTEM_PATHS } from "./routes/system.ts";

/** The nine public endpoints (docs/api.md#endpoints). */
export const API_ROUTES: readonly GatewayRoute[] = [
  dataRoute(OPERATIONS.listPosts),
  dataRoute(OPERATIONS.listComments),
  dataRoute(OPERATIONS.getCommentTree),
  dataRoute(OPERATIONS.searchSubreddits),
  dataRoute(OPERATIONS.getSubredditRules),
  dataRoute(OPERATIONS.getUserProfile),
  dataRoute(OPERATIONS.searchUsers),
  dataRoute(OPERATIONS.getActivity),
  getAccount,
];
