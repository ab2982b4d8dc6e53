/** adapter-users: serves adapter.users.get and adapter.users.search in the adapter-users queue group. */
import { type AdapterDeps, type RunningAdapter, startAdapter } from "@rda/adapter-kit";
import { QUEUE_GROUPS } from "@rda/contracts";
import { getUserProfile } from "./get-user-profile.ts";
import { searchUsers } from "./search-users.ts";

export function startAdapterUsers(deps: AdapterDeps): Promise<RunningAdapter> {
  return startAdapter(deps, QUEUE_GROUPS.adapterUsers, { getUserProfile, searchUsers });
}
