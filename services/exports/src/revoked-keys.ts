/**
 * What a key's revocation does to its exports (docs/api.md#exports): each queued, running or paused
 * one pauses for good, says why, and leaves its account's active exports, so the account may start
 * others with its remaining keys. Heard from billing's revocation event, or learned from a page debit
 * billing refused as `revoked`; both may repeat. A revoked key stays revoked (rotation refuses it), so
 * nothing resumes such a job; cancelling it still ends it with its paid rows.
 */
import type { Logger } from "@rda/service-kit";
import { type JobRecord, type JobStore, KEPT_PER_KEY } from "./job-store.ts";

export const REVOKED_KEY_REASON = "paused for good: the key that started this export was revoked";

const STOPPABLE_STATES = new Set(["queued", "running", "paused"]);

type Deps = {
  readonly jobs: Pick<JobStore, "update" | "deactivate" | "listForKey">;
  readonly logger: Logger;
};

export function isPausedByRevocation(record: Pick<JobRecord, "state" | "pausedBy">): boolean {
  return record.state === "paused" && record.pausedBy === "revoked";
}

/** Pauses one job of a revoked key for good; a page already fetched still joins its paid rows. */
export async function pauseRevokedJob(deps: Deps, id: string): Promise<void> {
  const paused = await deps.jobs.update(id, (r) =>
    STOPPABLE_STATES.has(r.state) && r.pausedBy !== "revoked"
      ? { ...r, state: "paused", pausedBy: "revoked", reason: REVOKED_KEY_REASON }
      : undefined,
  );
  if (paused !== undefined && isPausedByRevocation(paused)) await deps.jobs.deactivate(paused);
}

export async function pauseRevokedKey(deps: Deps, keyId: string): Promise<void> {
  const active = (await deps.jobs.listForKey(keyId, KEPT_PER_KEY)).filter(
    (record) => STOPPABLE_STATES.has(record.state) && record.pausedBy !== "revoked",
  );
  for (const record of active) await pauseRevokedJob(deps, record.id);
  if (active.length > 0)
    deps.logger.info({ key_id: keyId, exports: active.length }, "a revoked key's exports paused");
}
