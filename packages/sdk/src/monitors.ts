/**
 * Monitors (docs/api.md#monitors): create, list, read, change and delete a monitor (free), pull
 * its matched items (1 credit for a page holding at least one item), and manage its webhook: the
 * delivery log, a redelivery, a test event and a new signing secret. A pull refused for credits
 * (402) leaves the cursor where it was: the same call continues after a top-up.
 */
import type { operations } from "./generated/openapi.ts";
import {
  type CallOptionsOf,
  createResourceCaller,
  type ResourceAnswer,
  type ResourceCallOptions,
  type ResourceClientOptions,
} from "./json-call.ts";
import type { GatewayResult } from "./types.ts";

type Json<Op extends keyof operations, Status extends number> =
  operations[Op]["responses"] extends Record<Status, { content: { "application/json": infer Body } }>
    ? Body
    : never;
type DataOf<Op extends keyof operations, Status extends number> =
  Json<Op, Status> extends { data: infer D } ? D : never;

/** The body of `POST /v1/monitors`. */
export type MonitorRequest = operations["createMonitor"]["requestBody"]["content"]["application/json"];
/** The body of `PATCH /v1/monitors/{id}`. */
export type MonitorChange = operations["updateMonitor"]["requestBody"]["content"]["application/json"];
export type CreatedMonitor = DataOf<"createMonitor", 201>;
export type MonitorEstimate = DataOf<"estimateMonitor", 200>;
export type Monitor = CreatedMonitor["monitor"];
export type MonitorList = DataOf<"listMonitors", 200>;
export type MonitorItemsPage = DataOf<"pullMonitorItems", 200>;
export type MonitorDeliveries = DataOf<"listMonitorDeliveries", 200>;
export type MonitorDelivery = MonitorDeliveries["deliveries"][number];
export type RotatedWebhookSecret = DataOf<"rotateMonitorWebhookSecret", 200>;

export interface PullOptions extends ResourceCallOptions {
  /** The `cursor` of the previous page; omitted: from the first item. */
  cursor?: string | null;
  /** The most items on the page (1 to 100; default 100). */
  limit?: number;
}

type Answer<T> = Promise<GatewayResult<ResourceAnswer<T>>>;

/**
 * Each method's options are its route's (`CallOptionsOf`): creating a monitor, a redelivery and a
 * new secret take `idempotencyKey` too, and are retried under it (see the README, "Retries").
 */
export interface MonitorsClient {
  createMonitor(request: MonitorRequest, options?: CallOptionsOf<"createMonitor">): Answer<CreatedMonitor>;
  /** What creating `request` would estimate for its backfill; nothing is created. Free. */
  estimateMonitor(
    request: MonitorRequest,
    options?: CallOptionsOf<"estimateMonitor">,
  ): Answer<MonitorEstimate>;
  listMonitors(options?: CallOptionsOf<"listMonitors">): Answer<MonitorList>;
  getMonitor(id: string, options?: CallOptionsOf<"getMonitor">): Answer<{ monitor: Monitor }>;
  updateMonitor(
    id: string,
    change: MonitorChange,
    options?: CallOptionsOf<"updateMonitor">,
  ): Answer<{ monitor: Monitor }>;
  deleteMonitor(
    id: string,
    options?: CallOptionsOf<"deleteMonitor">,
  ): Answer<{ deleted: boolean; id: string }>;
  /** One page of matched items after `cursor`; `_service.credits_used` says whether it was charged. */
  pullMonitorItems(id: string, options?: PullOptions): Answer<MonitorItemsPage>;
  /** The webhook's delivery log, newest first, each delivery with every attempt. Free. */
  listMonitorDeliveries(
    id: string,
    options?: CallOptionsOf<"listMonitorDeliveries">,
  ): Answer<MonitorDeliveries>;
  /** Sends a logged batch again with the same `webhook-id`; 1 credit once the receiver accepts it. */
  redeliverMonitorBatch(
    id: string,
    deliveryId: string,
    options?: CallOptionsOf<"redeliverMonitorBatch">,
  ): Answer<{ delivery: MonitorDelivery }>;
  /** POSTs one signed test event to the webhook now and answers how it went. Free. */
  testMonitorWebhook(
    id: string,
    options?: CallOptionsOf<"testMonitorWebhook">,
  ): Answer<{ delivery: MonitorDelivery }>;
  /** A new signing secret, answered once; the previous one signs on until it expires. Free. */
  rotateMonitorWebhookSecret(
    id: string,
    options?: CallOptionsOf<"rotateMonitorWebhookSecret">,
  ): Answer<RotatedWebhookSecret>;
}

export function createMonitorsClient(options: ResourceClientOptions): MonitorsClient {
  const { request } = createResourceCaller(options);
  return {
    createMonitor: (body, call) => request("createMonitor", {}, body, call),
    estimateMonitor: (body, call) => request("estimateMonitor", {}, body, call),
    listMonitors: (call) => request("listMonitors", {}, undefined, call),
    getMonitor: (id, call) => request("getMonitor", { id }, undefined, call),
    updateMonitor: (id, change, call) => request("updateMonitor", { id }, change, call),
    deleteMonitor: (id, call) => request("deleteMonitor", { id }, undefined, call),
    pullMonitorItems: (id, pull = {}) =>
      request("pullMonitorItems", { id, cursor: pull.cursor, limit: pull.limit }, undefined, pull),
    listMonitorDeliveries: (id, call) => request("listMonitorDeliveries", { id }, undefined, call),
    redeliverMonitorBatch: (id, deliveryId, call) =>
      request("redeliverMonitorBatch", { id, delivery_id: deliveryId }, undefined, call),
    testMonitorWebhook: (id, call) => request("testMonitorWebhook", { id }, undefined, call),
    rotateMonitorWebhookSecret: (id, call) => request("rotateMonitorWebhookSecret", { id }, undefined, call),
  };
}
