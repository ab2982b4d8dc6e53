/**
 * The monitors service's NATS requests (`Subjects.monitors`, served in the `monitors` queue group). Every request names
 * the API key asking: a monitor is visible to its own key only. Replies are values: `ok` with the
 * answer, or the HTTP status and `{error}` a caller should get.
 */
import { z } from "zod";

export const MONITOR_ACTIONS = ["create", "list", "get", "update", "delete", "items"] as const;
export type MonitorAction = (typeof MONITOR_ACTIONS)[number];

export const MONITORS_QUEUE_GROUP = "monitors";

export const monitorRequestSchema = z.strictObject({
  key_id: z.string().min(1).max(64),
  id: z
    .string()
    .regex(/^mon_[A-Za-z0-9]{1,40}$/)
    .optional(),
  body: z.unknown().optional(),
  cursor: z.string().max(64).nullable().optional(),
});
export type MonitorRequest = z.infer<typeof monitorRequestSchema>;

export const monitorReplySchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), status: z.number().int(), error: z.string() }),
]);
export type MonitorReply = z.infer<typeof monitorReplySchema>;

/** The largest page a pull returns. */
export const MONITOR_PAGE_ITEMS = 100;
