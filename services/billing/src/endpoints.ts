/**
 * Every billing subject and its handler, in one place (explicit wiring). The hot path (lookup, debit,
 * balance) is bounded by a short store timeout; operator commands log what they changed, by key id.
 */
import {
  balanceRequestSchema,
  createKeyRequestSchema,
  debitRequestSchema,
  KEY_ID_PATTERN,
  type KeyRevokedEvent,
  lookupKeyRequestSchema,
  revokeKeyRequestSchema,
  type Subjects,
  showKeyRequestSchema,
  topUpRequestSchema,
  verifyLedgerRequestSchema,
} from "@rda/contracts";
import type { Logger, NatsConnection, RequestHandler } from "@rda/service-kit";
import { jsonEndpoint } from "./json-endpoint.ts";
import {
  createKey,
  debit,
  type KeyDefaults,
  type LedgerContext,
  lookupKey,
  readBalance,
  revokeKey,
  showKey,
  topUp,
  verifyLedger,
} from "./ledger/index.ts";

export interface EndpointDeps {
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  readonly context: LedgerContext;
  readonly logger: Logger;
  readonly defaults: KeyDefaults;
  readonly storeTimeoutMs: number;
}

export function billingEndpoints(deps: EndpointDeps): { subject: string; handler: RequestHandler }[] {
  const { subjects, context, logger } = deps;
  const hot = { logger, timeoutMs: deps.storeTimeoutMs };
  const operator = { logger, timeoutMs: deps.storeTimeoutMs * 5 };
  const billing = subjects.billing;
  return [
    {
      subject: billing.lookupKey,
      handler: jsonEndpoint(lookupKeyRequestSchema, (r) => lookupKey(context, r.key_hash), hot),
    },
    {
      subject: billing.debit,
      handler: jsonEndpoint(debitRequestSchema, (r) => debit(context, r.key_id, r.request_id), hot),
    },
    {
      subject: billing.balance,
      handler: jsonEndpoint(balanceRequestSchema, (r) => readBalance(context, r.key_id), hot),
    },
    {
      subject: billing.createKey,
      handler: jsonEndpoint(createKeyRequestSchema, (r) => create(deps, r), operator),
    },
    {
      subject: billing.showKey,
      handler: jsonEndpoint(showKeyRequestSchema, (r) => show(deps, r.id), operator),
    },
    {
      subject: billing.revokeKey,
      handler: jsonEndpoint(revokeKeyRequestSchema, (r) => revoke(deps, r.id), operator),
    },
    {
      subject: billing.topUp,
      handler: jsonEndpoint(topUpRequestSchema, (r) => addCredits(deps, r), operator),
    },
    {
      subject: billing.verifyLedger,
      handler: jsonEndpoint(verifyLedgerRequestSchema, () => verify(deps), { logger }),
    },
  ];
}

/** Ids come from operators' command lines: only well-formed ones may reach a Redis key name. */
const isKeyId = (id: string) => KEY_ID_PATTERN.test(id);

async function create(deps: EndpointDeps, request: Parameters<typeof createKey>[1]) {
  const reply = await createKey(deps.context, request, deps.defaults);
  deps.logger.info({ key_id: reply.id, credits: reply.credits }, "key created");
  return reply;
}

async function show(deps: EndpointDeps, id: string) {
  const key = isKeyId(id) ? await showKey(deps.context, id) : undefined;
  return key ? { found: true, key } : { found: false };
}

async function revoke(deps: EndpointDeps, id: string) {
  if (!isKeyId(id)) return { outcome: "not_found" };
  const outcome = await revokeKey(deps.context, id);
  if (outcome !== "not_found") {
    // Sent again for an already revoked key: harmless, and it heals a gateway that missed the first.
    const event: KeyRevokedEvent = { key_id: id };
    deps.nats.publish(deps.subjects.billing.keyRevoked, JSON.stringify(event));
    deps.logger.info({ key_id: id, outcome }, "key revoked");
  }
  return { outcome };
}

async function addCredits(
  deps: EndpointDeps,
  request: { id: string; usd_cents: number; request_id: string },
) {
  if (!isKeyId(request.id)) return { outcome: "not_found" };
  const reply = await topUp(deps.context, request.id, request.usd_cents, request.request_id);
  deps.logger.info({ key_id: request.id, usd_cents: request.usd_cents, ...reply }, "top-up handled");
  return reply;
}

async function verify(deps: EndpointDeps) {
  const report = await verifyLedger(deps.context);
  const log = report.ok ? deps.logger.info.bind(deps.logger) : deps.logger.error.bind(deps.logger);
  log({ keys_checked: report.keys_checked, mismatches: report.mismatches.length }, "ledger verified");
  return report;
}
