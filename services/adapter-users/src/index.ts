/** adapter-users: serves adapter.users.get in the adapter-users queue group. */
import { QUEUE_GROUPS } from "@rda/contracts";
import { type AdapterDeps, startAdapter } from "@rda/upstream-client";
import { getUser } from "./get-user.ts";

export function startAdapterUsers(deps: AdapterDeps): Promise<{ stop(): Promise<void> }> {
  return startAdapter(deps, QUEUE_GROUPS.adapterUsers, { getUserProfile: getUser });
}
