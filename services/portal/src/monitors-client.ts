/**
 * The portal's side of the monitors service's requests (`Subjects.monitors`, docs/api.md#monitors):
 * a signed-in person's monitors, one key at a time. The portal asks only after billing confirmed the
 * key belongs to the signed-in account (routes/monitors.ts), and names that account, so the limit
 * counts across the account's keys as it does through the API. Every way of not getting an answer
 * is a `NatsRequestFailure` value; a refusal is the service's own `{status, error}`.
 */
import {
  type MonitorAction,
  type MonitorFunding,
  type MonitorReply,
  monitorReplySchema,
  type Result,
  type Subjects,
} from "@rda/contracts";
import { type NatsConnection, type NatsRequestFailure, requestJson } from "@rda/service-kit";

/** Who asks: the key, its account, and whether it can pay for a delivery now (the status shown). */
export interface MonitorOwner {
  readonly keyId: string;
  readonly accountId: string;
  readonly funding: MonitorFunding;
}

type Answer = Promise<Result<MonitorReply, NatsRequestFailure>>;

export interface PortalMonitors {
  list(owner: MonitorOwner): Answer;
  /** The backfill estimate of a definition, validated as a create is; nothing is created. */
  estimate(owner: MonitorOwner, body: Record<string, unknown>): Answer;
  create(owner: MonitorOwner, body: Record<string, unknown>): Answer;
  delete(owner: MonitorOwner, id: string): Answer;
}

/** A create reads one upstream page for its estimate: longer than the other requests. */
const ESTIMATE_TIMEOUT_MS = 40_000;

export function createPortalMonitors(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  timeoutMs: number;
}): PortalMonitors {
  const ask = (action: MonitorAction, owner: MonitorOwner, extra: object, timeoutMs = deps.timeoutMs) =>
    requestJson(
      deps.nats,
      deps.subjects.monitors[action],
      { key_id: owner.keyId, account_id: owner.accountId, funding: owner.funding, ...extra },
      monitorReplySchema,
      timeoutMs,
    );
  return {
    list: (owner) => ask("list", owner, {}),
    estimate: (owner, body) => ask("create", owner, { body, estimate_only: true }, ESTIMATE_TIMEOUT_MS),
    create: (owner, body) => ask("create", owner, { body }, ESTIMATE_TIMEOUT_MS),
    delete: (owner, id) => ask("delete", owner, { id }),
  };
}
