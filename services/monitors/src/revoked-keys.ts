/**
 * What a key's revocation does to its monitors (docs/api.md#monitors): they stop polling and
 * delivering for good, show `revoked`, and leave their account's limit. Heard from billing's
 * revocation event, or learned from a debit billing refused as `revoked`; both may repeat.
 */
import type { Logger } from "@rda/service-kit";
import type { MonitorStore } from "./monitor-store.ts";

export async function stopRevokedKey(
  deps: { readonly store: Pick<MonitorStore, "stopRevokedKey">; readonly logger: Logger },
  keyId: string,
): Promise<void> {
  const stopped = await deps.store.stopRevokedKey(keyId, Math.floor(Date.now() / 1000));
  if (stopped.length > 0)
    deps.logger.info({ key_id: keyId, monitors: stopped.length }, "a revoked key's monitors stopped");
}
