/**
 * Who an export's concurrency limit counts against (EXPORT_LIMITS.maxActivePerAccount): the
 * account that owns the key, read from billing when the job starts, so an account cannot multiply
 * its exports by making keys. A key made by an operator has no account and counts as its own.
 */
import { budgetAccountOf, type Subjects } from "@rda/contracts";
import { billingCaller, type NatsConnection } from "@rda/service-kit";

/** The owner's id (an account id, or the key id for a key without one); undefined when billing did not answer. */
export type JobOwners = (keyId: string) => Promise<string | undefined>;

export function billingJobOwners(nats: NatsConnection, subjects: Subjects, timeoutMs: number): JobOwners {
  const billing = billingCaller(nats, subjects, timeoutMs);
  return async (keyId) => {
    const reply = await billing.call("showKey", { id: keyId });
    if (!reply.ok) return undefined;
    return reply.value.found ? (reply.value.key.account_id ?? keyId) : keyId;
  };
}

/** The owner as the upstream budget names it (`budgetAccountOf`): an account, or `key:<id>`. */
export function budgetAccountOfOwner(keyId: string, owner: string | undefined): string {
  return budgetAccountOf(keyId, owner === undefined || owner === keyId ? null : owner);
}
