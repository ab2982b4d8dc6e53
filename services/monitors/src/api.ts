/**
 * The monitors service's calls (`monitors.<action>`, MONITORS_RPC in contracts' monitors-rpc.ts):
 * create, estimate, list, get, update, delete and pull items, and a monitor's webhook calls (its
 * delivery log, a redelivery, a test event, a new secret), always within the asking key's own
 * monitors (another key's is "not found"). Each handler takes its call's own request and answers its
 * own reply. Bodies are validated here, one sentence naming every bad field.
 *
 * A create under a request token (contracts' `requestTokenSchema`) is done once per token: what it
 * makes (the monitor's id, the backfill's estimate, the webhook's secret sealed) is noted under the
 * token in the step that creates the monitor (monitor-store.ts `create`), and the same create again
 * answers that monitor as it is now, with the same secret.
 */
import { randomBytes } from "node:crypto";
import {
  budgetAccountOf,
  createMonitorSchema,
  type MonitorsRpcDecoded as Decoded,
  decodeJson,
  MONITOR_ACTIONS,
  MONITOR_PAGE_ITEMS,
  MONITORS_QUEUE_GROUP,
  MONITORS_RPC,
  type MonitorAction,
  type MonitorAsker,
  type MonitorFunding,
  type MonitorLimits,
  type MonitorRefusal,
  REQUEST_TOKEN_SECONDS,
  type MonitorsRpcReply as Reply,
  monitorRefusal as refuse,
  requestSchemaOf,
  type Subjects,
  updateMonitorSchema,
} from "@rda/contracts";
import {
  type ArchiveCount,
  type Logger,
  type NatsConnection,
  pagesForRows,
  type ServedSubject,
  serveSubject,
} from "@rda/service-kit";
import { newWebhookSecret } from "@rda/webhooks";
import type { z } from "zod";
import { type MonitorRecord, publicMonitor, sourceKeyOf } from "./monitor.ts";
import type { ItemCounts, MonitorStore } from "./monitor-store.ts";
import type { SourceLeases } from "./source-leases.ts";
import { fetchSourcePage } from "./source-pages.ts";
import type { MonitorWebhooks } from "./webhooks/monitor-webhooks.ts";

export interface ApiDeps {
  readonly nats: NatsConnection;
  readonly namespace: string;
  readonly subjects: Subjects;
  readonly store: MonitorStore;
  readonly leases: SourceLeases;
  readonly limits: MonitorLimits;
  readonly logger: Logger;
  readonly pageTimeoutMs: number;
  readonly webhooks: MonitorWebhooks;
  /** The archive's count of a window's items, for the backfill estimate. */
  readonly count: ArchiveCount;
  /**
   * Whether the key can pay for its next delivery now (`fundingOf`, from billing's balance and
   * month's spend): a monitor of a key that cannot is shown `paused_for_credits`. Asked of billing
   * here, never taken from the caller.
   */
  readonly funding: (keyId: string) => Promise<MonitorFunding>;
}

interface BackfillEstimate {
  upstream_pages: number | null;
  max_credits: number | null;
  estimated_items: number | null;
  method: string;
}

/** Each call of MONITORS_RPC: its own decoded request in, its own reply out. */
type Handlers = {
  readonly [N in MonitorAction]: (request: Decoded<N>, deps: ApiDeps) => Promise<Reply<N> | MonitorRefusal>;
};

const ok = <Value>(value: Value) => ({ ok: true as const, value });
const NOT_FOUND = refuse("resource_not_found", "monitor not found", "id");

const HANDLERS: Handlers = {
  create,
  estimate,
  list,
  get,
  update,
  delete: remove,
  items,
  deliveries: onOwned<"deliveries">(async (monitor, _request, deps) =>
    ok(await deps.webhooks.deliveries(monitor)),
  ),
  redeliver: onOwned<"redeliver">((monitor, request, deps) =>
    deps.webhooks.redeliver(monitor, request.delivery_id, request.request_token),
  ),
  test: onOwned<"test">((monitor, _request, deps) => deps.webhooks.test(monitor)),
  rotate_secret: onOwned<"rotate_secret">((monitor, request, deps) =>
    deps.webhooks.rotateSecret(monitor, request.request_token),
  ),
};

export function serveMonitorApi(deps: ApiDeps): ServedSubject[] {
  return MONITOR_ACTIONS.map((action) => serveCall(deps, action));
}

/** One call served on its subject, its request decoded with its own entry of the table. */
function serveCall<N extends MonitorAction>(deps: ApiDeps, action: N): ServedSubject {
  const handle: Handlers[N] = HANDLERS[action];
  return serveSubject(deps.nats, {
    subject: deps.subjects.monitors[action],
    queue: MONITORS_QUEUE_GROUP,
    logger: deps.logger,
    handler: async (payload) => {
      const request = decodeJson(payload, requestSchemaOf(MONITORS_RPC, action));
      if (!request.ok) return JSON.stringify(refuse("invalid_parameter", request.error));
      return JSON.stringify(await handle(request.value, deps));
    },
  });
}

/** Every bad field, as `field: reason; field: reason`; the field itself when only one is at fault. */
function refuseFields(error: z.ZodError): MonitorRefusal {
  const fields = error.issues.map((issue) => (issue.path.length > 0 ? issue.path.join(".") : "body"));
  const sentence = error.issues.map((issue, i) => `${fields[i]}: ${issue.message}`).join("; ");
  const only = new Set(fields).size === 1 && fields[0] !== "body" ? fields[0] : undefined;
  return refuse("invalid_parameter", sentence, only);
}

/** A create's body checked, the monitor it would make, and its backfill's estimate. */
interface Prepared {
  readonly monitor: MonitorRecord;
  readonly webhookUrl: string | undefined;
  readonly estimate: BackfillEstimate;
}

/** What a create and an estimate both do: check the body, the webhook and the limit, estimate. */
async function prepare(request: Decoded<"create">, deps: ApiDeps): Promise<Prepared | MonitorRefusal> {
  const body = createMonitorSchema(deps.limits).safeParse(request.body ?? {});
  if (!body.success) return refuseFields(body.error);
  const definition = body.data;
  const webhookProblem =
    definition.webhook_url === undefined ? undefined : deps.webhooks.problemWith(definition.webhook_url);
  if (webhookProblem !== undefined) return refuse("invalid_parameter", webhookProblem, "webhook_url");
  const monitor: MonitorRecord = {
    id: `mon_${randomBytes(12).toString("hex")}`,
    key_id: request.key_id,
    ...(request.account_id !== undefined ? { account_id: request.account_id } : {}),
    kind: definition.kind,
    ...(definition.subreddit !== undefined ? { subreddit: definition.subreddit } : {}),
    ...(definition.author !== undefined ? { author: definition.author } : {}),
    ...(definition.phrase !== undefined ? { phrase: definition.phrase } : {}),
    interval_seconds: definition.interval_seconds,
    ...(definition.backfill_from !== undefined ? { backfill_from: definition.backfill_from } : {}),
    paused: false,
    created_at: Math.floor(Date.now() / 1000),
    phase: { name: "backfill", cursor: null, pages: 0 },
  };
  const limit = deps.limits.maxMonitorsPerAccount;
  // Checked before the estimate's upstream page too; the create itself checks again, atomically.
  if ((await deps.store.countTowardsLimit(monitor)) >= limit) return limitReached(request, limit);
  return { monitor, webhookUrl: definition.webhook_url, estimate: await estimateBackfill(deps, monitor) };
}

async function estimate(request: Decoded<"estimate">, deps: ApiDeps): Promise<Reply<"estimate">> {
  const prepared = await prepare(request, deps);
  return "ok" in prepared ? prepared : ok({ backfill_estimate: prepared.estimate });
}

/** What a create made, as its request token keeps it: the secret sealed, never in the clear. */
interface Made {
  readonly monitor_id: string;
  readonly backfill_estimate: BackfillEstimate;
  readonly webhook_secret?: string;
}

async function create(request: Decoded<"create">, deps: ApiDeps): Promise<Reply<"create">> {
  const token = request.request_token;
  // Asked again under its token: the monitor the first made, estimated once only.
  const madeBefore = token === undefined ? undefined : await deps.store.requestedBy(request.key_id, token);
  if (madeBefore !== undefined) return createdBefore(request, deps, madeBefore);
  const prepared = await prepare(request, deps);
  if ("ok" in prepared) return prepared;
  const { monitor, webhookUrl } = prepared;
  const secret = webhookUrl === undefined ? undefined : newWebhookSecret();
  const made: Made = {
    monitor_id: monitor.id,
    backfill_estimate: prepared.estimate,
    ...(secret === undefined ? {} : { webhook_secret: deps.webhooks.seal(secret) }),
  };
  const requested =
    token === undefined
      ? undefined
      : { token, made: JSON.stringify(made), ttlSeconds: REQUEST_TOKEN_SECONDS };
  const created = await deps.store.create(monitor, deps.limits.maxMonitorsPerAccount, requested);
  if (created === "limit_reached") return limitReached(request, deps.limits.maxMonitorsPerAccount);
  // The same create under the same token, estimating alongside, made its monitor first.
  if (created !== "created") return createdBefore(request, deps, created.madeBefore);
  if (webhookUrl !== undefined) await deps.webhooks.configure(monitor, webhookUrl, true, secret);
  await deps.leases.wake(sourceKeyOf(monitor));
  return ok({
    monitor: await view(deps, monitor, await deps.funding(request.key_id)),
    backfill_estimate: prepared.estimate,
    ...(secret === undefined ? {} : { webhook_secret: secret }),
  });
}

/**
 * A create whose request token made a monitor before: that monitor as it is now, its backfill's
 * estimate as it was, and its webhook's first secret, opened again (the answer that was lost held it).
 */
async function createdBefore(
  request: Decoded<"create">,
  deps: ApiDeps,
  json: string,
): Promise<Reply<"create">> {
  const made = JSON.parse(json) as Made;
  const monitor = await owned({ ...request, id: made.monitor_id }, deps);
  if (monitor === undefined)
    return refuse(
      "state_conflict",
      `the monitor this Idempotency-Key created (${made.monitor_id}) has been deleted since; send a new Idempotency-Key to create another`,
    );
  return ok({
    monitor: await view(deps, monitor, await deps.funding(request.key_id)),
    backfill_estimate: made.backfill_estimate,
    ...(made.webhook_secret === undefined ? {} : { webhook_secret: deps.webhooks.open(made.webhook_secret) }),
  });
}

function limitReached(request: MonitorAsker, limit: number): MonitorRefusal {
  return refuse(
    "monitor_limit_reached",
    request.account_id !== undefined
      ? `an account may hold at most ${limit} monitors across its keys; delete one first`
      : `a key may hold at most ${limit} monitors; delete one first`,
  );
}

/**
 * The backfill's upstream pages, made as an export's quote is (docs/api.md#exports): the archive's
 * own count of the items since `backfill_from`, and how many a full page holds from the first page,
 * asked side by side. A first page that reaches now counts it exactly; without the count, the first
 * page's density is stretched over the window, and `method` says so. `max_credits` is the most
 * pulling costs at 100 items a pull when the count is right: an estimate, not a bound. Null figures
 * when no estimate could be made (the monitor is created all the same).
 */
async function estimateBackfill(deps: ApiDeps, monitor: MonitorRecord): Promise<BackfillEstimate> {
  const from = monitor.backfill_from;
  if (from === undefined)
    return { upstream_pages: 0, max_credits: 0, estimated_items: 0, method: "no backfill" };
  const now = Math.floor(Date.now() / 1000);
  const window = {
    kind: monitor.kind === "post" ? "posts" : "comments",
    ...(monitor.subreddit !== undefined ? { subreddit: monitor.subreddit } : { author: monitor.author }),
    after: from - 1,
    before: now + 1,
  } as const;
  // The estimate's two reads are the creating account's, in its fair share of the upstream budget.
  const account = budgetAccountOf(monitor.key_id, monitor.account_id);
  const [counted, page] = await Promise.all([
    deps
      .count(window, `monitors-estimate-${monitor.id}`, account)
      .then((total) => (total.ok ? total.value : undefined))
      .catch(() => undefined),
    fetchSourcePage(
      deps.nats,
      deps.subjects,
      monitor,
      { sort: "asc", after: from - 1, limit: MONITOR_PAGE_ITEMS },
      deps.pageTimeoutMs,
      account,
    ).catch(() => undefined),
  ]);
  if (page === undefined)
    return { upstream_pages: null, max_credits: null, estimated_items: null, method: "not available" };
  const estimate = (items: number, fill: number, method: string): BackfillEstimate => {
    const pages = pagesForRows(items, fill);
    return { upstream_pages: pages, max_credits: pages, estimated_items: items, method };
  };
  if (!page.has_more)
    return estimate(
      page.items.length,
      MONITOR_PAGE_ITEMS,
      "counted exactly: the first page holds the whole backfill",
    );
  if (counted !== undefined) {
    const phrase =
      monitor.phrase === undefined ? "" : "; items before the phrase filter, so pulling costs at most this";
    return estimate(
      counted,
      page.items.length,
      `items counted by the archive's aggregate since backfill_from; pages from ${page.items.length} items per full page${phrase}`,
    );
  }
  const covered = page.cursor === null ? 0 : page.cursor - from + 1;
  const items = covered <= 0 ? page.items.length : Math.round((page.items.length * (now - from)) / covered);
  return estimate(
    items,
    page.items.length,
    "sampled (the archive's count was not available): the first page's density over the whole window",
  );
}

async function list(request: Decoded<"list">, deps: ApiDeps): Promise<Reply<"list">> {
  const [monitors, used] = await Promise.all([
    deps.store.listOwned(request.key_id),
    deps.store.countTowardsLimit(request),
  ]);
  const [counts, funding] = await Promise.all([
    deps.store.itemCounts(monitors.map((monitor) => monitor.id)),
    deps.funding(request.key_id),
  ]);
  const views = await Promise.all(
    monitors.map(async (monitor, index) => withCounts(await view(deps, monitor, funding), counts[index])),
  );
  return ok({ monitors: views, limit: deps.limits.maxMonitorsPerAccount, limit_used: used });
}

function withCounts<T extends object>(monitor: T, counts: ItemCounts | undefined) {
  return { ...monitor, items_collected: counts?.collected ?? 0, items_pulled: counts?.pulled ?? 0 };
}

/** The asking key's own monitor, or none: another key's is not found, as one that does not exist. */
async function owned(request: Decoded<"get">, deps: ApiDeps): Promise<MonitorRecord | undefined> {
  const monitor = await deps.store.get(request.id);
  return monitor?.key_id === request.key_id ? monitor : undefined;
}

async function get(request: Decoded<"get">, deps: ApiDeps): Promise<Reply<"get">> {
  const monitor = await owned(request, deps);
  if (!monitor) return NOT_FOUND;
  const [counts] = await deps.store.itemCounts([monitor.id]);
  return ok({ monitor: withCounts(await view(deps, monitor, await deps.funding(request.key_id)), counts) });
}

async function update(request: Decoded<"update">, deps: ApiDeps): Promise<Reply<"update">> {
  const monitor = await owned(request, deps);
  if (!monitor) return NOT_FOUND;
  if (monitor.revoked_at !== undefined)
    return refuse(
      "state_conflict",
      "the monitor stopped for good: its key was revoked; it can only be deleted",
    );
  const body = updateMonitorSchema(deps.limits)
    .partial()
    .safeParse(request.body ?? {});
  if (!body.success) return refuseFields(body.error);
  const { phrase, interval_seconds, paused, webhook_url } = body.data;
  const webhookProblem = typeof webhook_url === "string" ? deps.webhooks.problemWith(webhook_url) : undefined;
  if (webhookProblem !== undefined) return refuse("invalid_parameter", webhookProblem, "webhook_url");
  // Only the fields asked are written, onto the record as it stands (the poller moves its phase).
  const next = await deps.store.update(monitor.id, (current) => {
    const { phrase: _previous, ...rest } = current;
    return {
      ...rest,
      ...(phrase === undefined && current.phrase !== undefined ? { phrase: current.phrase } : {}),
      ...(typeof phrase === "string" ? { phrase } : {}),
      interval_seconds: interval_seconds ?? current.interval_seconds,
      paused: paused ?? current.paused,
    };
  });
  if (!next) return NOT_FOUND;
  const secret = await deps.webhooks.update(next, { webhook_url, paused });
  if (!next.paused) await deps.leases.wake(sourceKeyOf(next));
  return ok({
    monitor: await view(deps, next, await deps.funding(request.key_id)),
    ...(secret === undefined ? {} : { webhook_secret: secret }),
  });
}

async function remove(request: Decoded<"delete">, deps: ApiDeps): Promise<Reply<"delete">> {
  const monitor = await owned(request, deps);
  if (!monitor) return NOT_FOUND;
  await deps.store.delete(monitor);
  await deps.webhooks.remove(monitor);
  await deps.store.forgetSourceIfUnwatched(sourceKeyOf(monitor));
  return ok({ deleted: true, id: monitor.id });
}

const CURSOR = /^\d{1,15}-\d{1,10}$/;

async function items(request: Decoded<"items">, deps: ApiDeps): Promise<Reply<"items">> {
  const monitor = await owned(request, deps);
  if (!monitor) return NOT_FOUND;
  const cursor = request.cursor ?? null;
  if (cursor !== null && !CURSOR.test(cursor))
    return refuse("invalid_parameter", "cursor: must be a cursor this endpoint returned", "cursor");
  const page = await deps.store.page(monitor.id, cursor, request.limit ?? MONITOR_PAGE_ITEMS);
  return ok({ items: page.items, cursor: page.cursor });
}

/**
 * The public view: the status from the key's funding now (paused for credits), and what the
 * monitor's webhook adds (its URL; `failing`, or paused for credits when a batch was refused).
 */
async function view(deps: ApiDeps, monitor: MonitorRecord, funding: MonitorFunding) {
  return { ...publicMonitor(monitor, funding), ...(await deps.webhooks.view(monitor)) };
}

/** A webhook call (the delivery log, a redelivery, a test event, a new secret) on the key's own monitor. */
function onOwned<N extends "deliveries" | "redeliver" | "test" | "rotate_secret">(
  handle: (monitor: MonitorRecord, request: Decoded<N>, deps: ApiDeps) => Promise<Reply<N>>,
): (request: Decoded<N>, deps: ApiDeps) => Promise<Reply<N> | MonitorRefusal> {
  return async (request, deps) => {
    const monitor = await owned(request, deps);
    return monitor ? handle(monitor, request, deps) : NOT_FOUND;
  };
}
