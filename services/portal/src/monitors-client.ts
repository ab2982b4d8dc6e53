/**
 * The portal's side of the monitors service's calls (MONITORS_RPC, docs/api.md#monitors):
 * a signed-in person's monitors, one key at a time. The portal asks only after billing confirmed the
 * key belongs to the signed-in account (routes/monitors.ts, routes/monitor-webhooks.ts), and names
 * that account, so the limit counts across the account's keys as it does through the API. Every way of not getting an answer
 * is a `NatsRequestFailure` value; a refusal is the service's own `{status, error}`.
 */
import { MONITORS_RPC, type MonitorReply, type Result, type Subjects } from "@rda/contracts";
import { type NatsConnection, type NatsRequestFailure, rpcCaller } from "@rda/service-kit";

/** Who asks: the key and its account (the monitors service reads from billing whether it can pay). */
export interface MonitorOwner {
  readonly keyId: string;
  readonly accountId: string;
}

type Answer = Promise<Result<MonitorReply, NatsRequestFailure>>;

export interface PortalMonitors {
  list(owner: MonitorOwner): Answer;
  /** The backfill estimate of a definition, validated as a create is; nothing is created. */
  estimate(owner: MonitorOwner, body: Record<string, unknown>): Answer;
  create(owner: MonitorOwner, body: Record<string, unknown>): Answer;
  delete(owner: MonitorOwner, id: string): Answer;
  /** The webhook's delivery log, newest first: each delivery with every attempt. */
  deliveries(owner: MonitorOwner, id: string): Answer;
  /** Sends a signed test event to the webhook now and logs it; answers the delivery. */
  test(owner: MonitorOwner, id: string): Answer;
  /** Sends a logged batch again, with the same `webhook-id`. */
  redeliver(owner: MonitorOwner, id: string, deliveryId: string): Answer;
  /** A new signing secret, answered once; the old one signs on during the overlap. */
  rotateSecret(owner: MonitorOwner, id: string): Answer;
}

/** A create reads one upstream page for its estimate: longer than the other requests. */
const ESTIMATE_TIMEOUT_MS = 40_000;
/**
 * A test event waits for the receiver's answer (at most 5 s: TEST_TIMEOUT_MS in
 * services/monitors/src/webhooks/monitor-webhooks.ts), so it gets more than the other requests.
 */
const TEST_EVENT_TIMEOUT_MS = 15_000;

export function createPortalMonitors(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  timeoutMs: number;
}): PortalMonitors {
  const monitors = rpcCaller(deps.nats, MONITORS_RPC, deps.subjects.monitors, deps.timeoutMs);
  const asker = (owner: MonitorOwner) => ({ key_id: owner.keyId, account_id: owner.accountId });
  return {
    list: (owner) => monitors.call("list", asker(owner)),
    estimate: (owner, body) =>
      monitors.call("create", { ...asker(owner), body, estimate_only: true }, ESTIMATE_TIMEOUT_MS),
    create: (owner, body) => monitors.call("create", { ...asker(owner), body }, ESTIMATE_TIMEOUT_MS),
    delete: (owner, id) => monitors.call("delete", { ...asker(owner), id }),
    deliveries: (owner, id) => monitors.call("deliveries", { ...asker(owner), id }),
    test: (owner, id) => monitors.call("test", { ...asker(owner), id }, TEST_EVENT_TIMEOUT_MS),
    redeliver: (owner, id, deliveryId) =>
      monitors.call("redeliver", { ...asker(owner), id, delivery_id: deliveryId }),
    rotateSecret: (owner, id) => monitors.call("rotate_secret", { ...asker(owner), id }),
  };
}
