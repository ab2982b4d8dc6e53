/**
 * Key management as billing answers it to the operator CLI and the developer portal: each command
 * checks the id's shape before it reaches a Redis key name, logs what it changed by key id, and tells
 * every gateway when a key must leave its cache.
 */
import {
  type BillingRpcReply,
  type CreateKeyRequest,
  KEY_ID_PATTERN,
  type KeyChangedEvent,
  type KeyUsageReply,
  type ListKeysReply,
  type SetSpendCapReply,
  type SetSpendCapRequest,
  type Subjects,
} from "@rda/contracts";
import type { Logger, NatsConnection } from "@rda/service-kit";
import {
  createKey,
  type KeyDefaults,
  type LedgerContext,
  listAccountKeys,
  listKeysByLabel,
  readUsage,
  revokeKey,
  rotateKey,
  setSpendCap,
  showKey,
  topUp,
  verifyLedger,
} from "./ledger/index.ts";
import type { BillingMetrics } from "./metrics.ts";

export interface KeyCommandDeps {
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  readonly context: LedgerContext;
  readonly logger: Logger;
  readonly defaults: KeyDefaults;
  readonly metrics: BillingMetrics;
}

/** Ids come from command lines and URLs: only well-formed ones may reach a Redis key name. */
const isKeyId = (id: string) => KEY_ID_PATTERN.test(id);

export async function create(deps: KeyCommandDeps, request: CreateKeyRequest) {
  const reply = await createKey(deps.context, request, deps.defaults);
  if (reply.outcome === "created") deps.metrics.keyChanges.inc({ change: "created" });
  if (reply.outcome === "created")
    deps.logger.info(
      { key_id: reply.id, account_id: request.account_id, credits: reply.credits },
      "key created",
    );
  else deps.logger.info({ account_id: request.account_id, limit: reply.limit }, "key refused: account limit");
  return reply;
}

export async function show(
  deps: KeyCommandDeps,
  request: { id: string; account_id?: string },
): Promise<BillingRpcReply<"showKey">> {
  const key = isKeyId(request.id) ? await showKey(deps.context, request.id, request.account_id) : undefined;
  return key ? { found: true, key } : { found: false };
}

export function list(
  deps: KeyCommandDeps,
  request: { account_id: string } | { label: string },
): Promise<ListKeysReply> {
  return "account_id" in request
    ? listAccountKeys(deps.context, request.account_id, deps.defaults)
    : listKeysByLabel(deps.context, request.label);
}

export async function revoke(
  deps: KeyCommandDeps,
  request: { id: string; account_id?: string },
): Promise<BillingRpcReply<"revokeKey">> {
  if (!isKeyId(request.id)) return { outcome: "not_found" };
  const outcome = await revokeKey(deps.context, request.id, request.account_id);
  if (outcome === "revoked") deps.metrics.keyChanges.inc({ change: "revoked" });
  if (outcome !== "not_found") {
    // Sent again for an already revoked key: harmless, and it heals a gateway that missed the first.
    announce(deps, { key_id: request.id, change: "revoked" });
    deps.logger.info({ key_id: request.id, outcome }, "key revoked");
  }
  return { outcome };
}

export async function rotate(
  deps: KeyCommandDeps,
  request: { id: string; account_id?: string },
): Promise<BillingRpcReply<"rotateKey">> {
  if (!isKeyId(request.id)) return { outcome: "not_found" };
  const reply = await rotateKey(deps.context, request.id, request.account_id);
  if (reply.outcome === "rotated") {
    deps.metrics.keyChanges.inc({ change: "rotated" });
    announce(deps, { key_id: request.id, change: "rotated" });
    deps.logger.info({ key_id: request.id }, "key rotated");
  }
  return reply;
}

export async function capSpend(deps: KeyCommandDeps, request: SetSpendCapRequest): Promise<SetSpendCapReply> {
  if (!isKeyId(request.id)) return { outcome: "not_found" };
  const reply = await setSpendCap(deps.context, request);
  if (reply.outcome === "set")
    deps.logger.info({ key_id: request.id, monthly_cap: request.monthly_cap }, "monthly spend cap set");
  return reply;
}

export async function usage(
  deps: KeyCommandDeps,
  request: { id: string; account_id?: string; days: number },
): Promise<KeyUsageReply> {
  const key = isKeyId(request.id) ? await showKey(deps.context, request.id, request.account_id) : undefined;
  if (!key) return { found: false };
  return { found: true, days: await readUsage(deps.context, request.id, request.days) };
}

export async function addCredits(
  deps: KeyCommandDeps,
  request: { id: string; usd_cents: number; request_id: string },
): Promise<BillingRpcReply<"topUp">> {
  if (!isKeyId(request.id)) return { outcome: "not_found" };
  const reply = await topUp(
    deps.context,
    request.id,
    request.usd_cents,
    request.request_id,
    deps.defaults.maxBalance,
  );
  deps.metrics.topUps.inc({ outcome: reply.outcome });
  if (reply.outcome === "ok") deps.metrics.topUpCents.inc(request.usd_cents);
  deps.logger.info({ key_id: request.id, usd_cents: request.usd_cents, ...reply }, "top-up handled");
  return reply;
}

export async function verify(deps: KeyCommandDeps) {
  const report = await verifyLedger(deps.context);
  const log = report.ok ? deps.logger.info.bind(deps.logger) : deps.logger.error.bind(deps.logger);
  log({ keys_checked: report.keys_checked, mismatches: report.mismatches.length }, "ledger verified");
  return report;
}

function announce(deps: KeyCommandDeps, event: KeyChangedEvent): void {
  deps.nats.publish(deps.subjects.billing.keyChanged, JSON.stringify(event));
}
