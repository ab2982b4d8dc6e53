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

export const WEBHOOK_HANDLERS = {
  deliveries: async (monitor, _request, webhooks) => ({
    ok: true,
    value: await webhooks.deliveries(monitor),
  }),
  redeliver: (monitor, request, webhooks) => webhooks.redeliver(monitor, request.delivery_id),
  test: (monitor, _request, webhooks) => webhooks.test(monitor),
  rotate_secret: (monitor, _request, webhooks) => webhooks.rotateSecret(monitor),
} as const satisfies Record<string, Handler>;
