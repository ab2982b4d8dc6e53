/**
 * What every monitor page shares: the status labels, the monitor id's shape, and asking the gateway
 * about the key's monitors (key-pages.ts), a silent service being the monitors' "unavailable" page.
 */
import { MONITOR_ID_PATTERN } from "@rda/contracts";
import type { FastifyReply } from "fastify";
import type { PortalContext } from "../context.ts";
import type { CallOptions } from "../gateway-client.ts";
import { askGateway, type Loaded } from "./key-pages.ts";

export { type Loaded, ownerOf, type Refusal, renderRefusalPage } from "./key-pages.ts";

export type MonitorParams = { Params: { id: string; monitorId: string } };

export const MONITOR_ID = MONITOR_ID_PATTERN;

/** What a person sees for each status the service reports. */
export const MONITOR_STATUS_LABELS: Record<string, string> = {
  backfilling: "Active: collecting history",
  live: "Active",
  paused: "Paused",
  paused_for_credits: "Paused for credits",
  failing: "Failing",
  revoked: "Stopped: its key was revoked",
};

/** A call about the key's monitors (key-pages.ts' askGateway). */
export function askMonitors(
  ctx: PortalContext,
  reply: FastifyReply,
  loaded: Loaded,
  method: "GET" | "POST" | "DELETE",
  path: string,
  options: CallOptions = {},
) {
  return askGateway(ctx, reply, loaded, method, path, { ...options, unavailable: "monitors_unavailable" });
}
