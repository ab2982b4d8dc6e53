/**
 * The monitors service's webhook requests: the delivery log, redelivering a batch, a test event and
 * rotating the secret, each within the asking key's own monitors (api.ts finds the monitor).
 */
import type { MonitorReply, MonitorRequest } from "@rda/contracts";
import type { MonitorRecord } from "../monitor.ts";
import type { MonitorWebhooks } from "./monitor-webhooks.ts";

type Handler = (
  monitor: MonitorRecord,
  request: MonitorRequest,
  webhooks: MonitorWebhooks,
) => Promise<MonitorReply>;

const answer = (outcome: { ok: true; value: unknown } | { ok: false; status: number; error: string }) =>
  outcome.ok ? outcome : { ok: false as const, status: outcome.status, error: outcome.error };

export const WEBHOOK_HANDLERS = {
  deliveries: async (monitor, _request, webhooks) => ({
    ok: true,
    value: await webhooks.deliveries(monitor),
  }),
  redeliver: async (monitor, request, webhooks) =>
    answer(await webhooks.redeliver(monitor, request.delivery_id)),
  test: async (monitor, _request, webhooks) => answer(await webhooks.test(monitor)),
  rotate_secret: async (monitor, _request, webhooks) => answer(await webhooks.rotateSecret(monitor)),
} as const satisfies Record<string, Handler>;
