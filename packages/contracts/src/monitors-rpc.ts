/**
 * The monitors service's calls (the convention of rpc.ts, as BILLING_RPC): one subject each
 * (`buildSubjects(ns).monitors[name]`), served in the `monitors` queue group, each with its own
 * request schema and its own reply: `ok` with the call's own answer (the `data` of the route it
 * serves, monitor-views.ts), or the catalog code, status and sentence a caller should get. Every
 * request names the API key asking (a monitor is visible to its own key only) and the portal account
 * owning it, as billing knows it: the limit on monitors counts per account; an operator's key has
 * none, and its limit counts for the key alone.
 *
 * Changing a monitor to the same values, reading, estimating and deleting are safe to send again;
 * creating one, sending a test event, a redelivery and a new secret are not, unless they carry a
 * `request_token` (message-fields.ts): a create, a redelivery or a new secret sent again with the
 * same one is answered with what the first did (the same monitor and secret, the same round, the
 * same new secret), done once.
 */
import { z } from "zod";
import { ERRORS, SERVICE_REFUSAL_CODES, type ServiceRefusalCode } from "./errors.ts";
import { accountIdSchema, keyIdSchema, requestTokenSchema } from "./message-fields.ts";
import {
  changedMonitorSchema,
  createdMonitorSchema,
  deletedMonitorSchema,
  monitorDeliveriesSchema,
  monitorEstimateSchema,
  monitorItemsPageSchema,
  monitorListSchema,
  oneDeliverySchema,
  oneMonitorSchema,
  rotatedSecretSchema,
} from "./monitor-views.ts";
import { MONITOR_ID_PATTERN, MONITOR_PAGE_ITEMS } from "./monitors.ts";
import { type RpcDecoded, type RpcReply, type RpcRequest, rpc } from "./rpc.ts";

export const monitorRefusalSchema = z.object({
  ok: z.literal(false),
  status: z.number().int(),
  /** The catalog code (docs/api.md#errors); `status` is its status. */
  code: z.enum(SERVICE_REFUSAL_CODES),
  error: z.string(),
  param: z.string().optional(),
});
export type MonitorRefusal = z.infer<typeof monitorRefusalSchema>;

/** A monitors command refused: the catalog code, its status, and the service's own sentence. */
export function monitorRefusal(code: ServiceRefusalCode, error: string, param?: string): MonitorRefusal {
  return { ok: false, status: ERRORS[code].status, code, error, ...(param === undefined ? {} : { param }) };
}

/** A call's reply: its own answer, or a refusal. */
const replyWith = <Value extends z.ZodType>(value: Value) =>
  z.union([z.object({ ok: z.literal(true), value }), monitorRefusalSchema]);

/** Who asks, on every request: the key, and the portal account owning it when it has one. */
const asker = { key_id: keyIdSchema, account_id: accountIdSchema.optional() };
const ofMonitor = { ...asker, id: z.string().regex(MONITOR_ID_PATTERN) };
/** A create's body, checked by the monitors service (it names every bad field). */
const definition = { ...asker, body: z.unknown().optional() };
/** Sent with a command the client sent under `Idempotency-Key`: the same token, the same command. */
const once = { request_token: requestTokenSchema.optional() };

export const MONITORS_RPC = {
  create: rpc(z.strictObject({ ...definition, ...once }), replyWith(createdMonitorSchema), false),
  /** A create's body checked as a create checks it, and its backfill's estimate; nothing created. */
  estimate: rpc(z.strictObject(definition), replyWith(monitorEstimateSchema), true),
  list: rpc(z.strictObject(asker), replyWith(monitorListSchema), true),
  get: rpc(z.strictObject(ofMonitor), replyWith(oneMonitorSchema), true),
  update: rpc(
    z.strictObject({ ...ofMonitor, body: z.unknown().optional() }),
    replyWith(changedMonitorSchema),
    true,
  ),
  delete: rpc(z.strictObject(ofMonitor), replyWith(deletedMonitorSchema), true),
  items: rpc(
    z.strictObject({
      ...ofMonitor,
      cursor: z.string().max(64).nullable().optional(),
      /** The most items a pulled page may hold (default and most: MONITOR_PAGE_ITEMS). */
      limit: z.number().int().min(1).max(MONITOR_PAGE_ITEMS).optional(),
    }),
    replyWith(monitorItemsPageSchema),
    true,
  ),
  deliveries: rpc(z.strictObject(ofMonitor), replyWith(monitorDeliveriesSchema), true),
  /** The delivery (its `webhook-id`) to send again. */
  redeliver: rpc(
    z.strictObject({ ...ofMonitor, delivery_id: z.string().max(80), ...once }),
    replyWith(oneDeliverySchema),
    false,
  ),
  test: rpc(z.strictObject(ofMonitor), replyWith(oneDeliverySchema), false),
  rotate_secret: rpc(z.strictObject({ ...ofMonitor, ...once }), replyWith(rotatedSecretSchema), false),
} as const;

export type MonitorsRpc = typeof MONITORS_RPC;
export type MonitorAction = keyof MonitorsRpc;
export const MONITOR_ACTIONS = Object.keys(MONITORS_RPC) as MonitorAction[];
export type MonitorsRpcRequest<N extends MonitorAction> = RpcRequest<MonitorsRpc, N>;
export type MonitorsRpcDecoded<N extends MonitorAction> = RpcDecoded<MonitorsRpc, N>;
export type MonitorsRpcReply<N extends MonitorAction> = RpcReply<MonitorsRpc, N>;
/** Who asks: the key and its account (on every call). */
export type MonitorAsker = MonitorsRpcDecoded<"list">;
