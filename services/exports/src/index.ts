/**
 * `startExports(deps)`: the exports service as a value — the management commands on NATS, the
 * workers on the JetStream work queue, the download listener and the retention sweep. It neither
 * reads the environment nor exits; `main.ts` is the process shell.
 */
import { randomBytes } from "node:crypto";
import {
  DEADLINE_DEFAULTS,
  decodeJson,
  EXPORTS_RPC,
  EXPORTS_RPC_NAMES,
  type ExportsRpcName,
  requestSchemaOf,
  type Subjects,
  workDebitDeadlineMs,
} from "@rda/contracts";
import {
  adapterArchiveCount,
  billingCaller,
  createDebitEnds,
  isNatsConnected,
  jetstream,
  jetstreamManager,
  type Logger,
  type NatsConnection,
  type Redis,
  ServiceError,
  serveSubject,
  startLoop,
  tellSpendingPaused,
  watchKeyRevocations,
} from "@rda/service-kit";
import { type ExportHandlers, exportHandlers } from "./commands.ts";
import { downloadLinks } from "./download-links.ts";
import { startDownloadServer } from "./download-server.ts";
import { billingJobOwners } from "./job-owner.ts";
import { ensureJobQueue } from "./job-queue.ts";
import { exportKeys, jobLeases, redisJobStore } from "./job-store.ts";
import { filesystemStore, type ObjectStore } from "./object-store.ts";
import { natsPageBilling } from "./page-billing.ts";
import { adapterPageSource } from "./page-source.ts";
import { pauseRevokedKey } from "./revoked-keys.ts";
import { startWorkers, type WorkerSettings } from "./worker.ts";

export { filesystemStore, type ObjectStore } from "./object-store.ts";

export interface ExportSettings extends Partial<WorkerSettings> {
  /** EXPORTS_DIR: the filesystem store's directory, used when no `objects` store is given. */
  readonly storageDir?: string;
  readonly adapterTimeoutMs?: number;
  readonly billingTimeoutMs?: number;
  /** Signs download links; the same on every replica behind `linkBaseUrl`. Default: random. */
  readonly linkSecret?: string;
  /** Where the gateway reaches the download listener; default the listener's own address. */
  readonly linkBaseUrl?: string;
  /** How often expired files are removed. */
  readonly sweepMs?: number;
  /** Set false to serve commands only (no workers on this replica). */
  readonly runWorkers?: boolean;
  /** Quotes one account (all its keys) may ask a minute (EXPORTS_QUOTES_PER_MINUTE). */
  readonly quotesPerMinute?: number;
  /** NATS_REPLICAS: copies of the job queue's stream (default 1). */
  readonly natsReplicas?: number;
}

/** A quote reads the archive twice; ten a minute is more than a person or a script needs. */
export const DEFAULT_QUOTES_PER_MINUTE = 10;

export interface ExportsDeps {
  readonly nats: NatsConnection;
  readonly redis: Redis;
  readonly subjects: Subjects;
  readonly namespace: string;
  readonly logger: Logger;
  readonly objects?: ObjectStore;
  readonly settings?: ExportSettings;
}

export interface RunningExports {
  /** The download listener's base URL. */
  readonly url: string;
  stop(): Promise<void>;
}

const DAY_MS = 86_400_000;

export function workerSettings(settings: ExportSettings = {}): WorkerSettings {
  return {
    pagesPerSecond: settings.pagesPerSecond ?? 2,
    ackWaitMs: settings.ackWaitMs ?? 30_000,
    balanceRetryMs: settings.balanceRetryMs ?? 30_000,
    pageRetryMs: settings.pageRetryMs ?? 2_000,
    maxPageFailures: settings.maxPageFailures ?? 8,
    retentionMs: settings.retentionMs ?? 7 * DAY_MS,
    concurrency: settings.concurrency ?? 2,
  };
}

export async function startExports(
  deps: ExportsDeps,
  listen: { port: number; host: string },
): Promise<RunningExports> {
  const { nats, redis, subjects, logger } = deps;
  const settings = workerSettings(deps.settings);
  const exportSubjects = subjects.exports;
  await ensureJobQueue(
    await jetstreamManager(nats),
    exportSubjects,
    settings.ackWaitMs,
    deps.settings?.natsReplicas ?? 1,
  );
  const keys = exportKeys(deps.namespace);
  const jobs = redisJobStore(redis, keys);
  const objects = deps.objects ?? filesystemStore(deps.settings?.storageDir ?? "data/exports");
  const source = adapterPageSource(
    nats,
    subjects,
    deps.settings?.adapterTimeoutMs ?? DEADLINE_DEFAULTS.adapterTimeoutMs,
  );
  const billingTimeoutMs = deps.settings?.billingTimeoutMs ?? 5_000;
  const caller = billingCaller(nats, subjects, billingTimeoutMs);
  const ends = createDebitEnds({
    billing: caller,
    nats,
    subjects,
    logger,
    settleRetryMs: workDebitDeadlineMs(settings.ackWaitMs, settings.ackWaitMs),
  });
  const billing = natsPageBilling(caller, ends, settings.ackWaitMs);
  const secret = deps.settings?.linkSecret ?? randomBytes(32).toString("base64url");

  let linkBase = "";
  const links = downloadLinks(secret, "", 5 * 60_000);
  const signedLinks = { ...links, sign: (id: string, now?: number) => `${linkBase}${links.sign(id, now)}` };
  const server = await startDownloadServer(
    { links, jobs, objects, logger, ready: () => isNatsConnected(nats) },
    listen,
  );
  linkBase = deps.settings?.linkBaseUrl ?? server.url;

  const commandDeps = {
    nats,
    js: jetstream(nats),
    subjects,
    exportSubjects,
    jobs,
    objects,
    source,
    billing,
    links: signedLinks,
    count: adapterArchiveCount(
      nats,
      subjects,
      deps.settings?.adapterTimeoutMs ?? DEADLINE_DEFAULTS.adapterTimeoutMs,
    ),
    owners: billingJobOwners(nats, subjects, billingTimeoutMs),
    logger,
    pagesPerSecond: settings.pagesPerSecond,
    quoteTtlSeconds: 86_400,
    quotesPerMinute: deps.settings?.quotesPerMinute ?? DEFAULT_QUOTES_PER_MINUTE,
  };
  const handlers = exportHandlers(commandDeps);
  /** One call on its own subject, its request decoded with its own entry of the table (EXPORTS_RPC). */
  const serveCall = <N extends ExportsRpcName>(name: N) => {
    const handle: ExportHandlers[N] = handlers[name];
    return serveSubject(nats, {
      subject: exportSubjects.commands[name],
      queue: exportSubjects.queueGroup,
      logger,
      handler: async (payload) => {
        const request = decodeJson(payload, requestSchemaOf(EXPORTS_RPC, name));
        if (!request.ok) throw new ServiceError(400, `invalid export call ${name}: ${request.error}`);
        return JSON.stringify(await handle(request.value));
      },
    });
  };
  const served = EXPORTS_RPC_NAMES.map(serveCall);
  const workers =
    deps.settings?.runWorkers === false
      ? undefined
      : await startWorkers({
          nats,
          subjects,
          exportSubjects,
          jobs,
          // As long as the queue's ack wait: a job whose worker died goes on elsewhere after either.
          leases: jobLeases(redis, keys, settings.ackWaitMs),
          objects,
          source,
          billing,
          tellPaused: (keyId, refusal, pause) => tellSpendingPaused(nats, subjects, keyId, refusal, pause),
          logger,
          settings,
        });

  const revocations = watchKeyRevocations({
    nats,
    subjects,
    logger,
    onRevoked: (keyId) => pauseRevokedKey({ jobs, logger }, keyId),
  });

  const sweep = startLoop({
    name: "export retention sweep",
    everyMs: deps.settings?.sweepMs ?? 60_000,
    turn: () => removeExpired(jobs, objects),
    logger,
  });

  return {
    url: server.url,
    async stop() {
      await sweep.stop();
      revocations.stop();
      await Promise.all(served.map((subject) => subject.stop()));
      await workers?.stop();
      await ends.stop();
      await server.close();
    },
  };
}

async function removeExpired(jobs: ReturnType<typeof redisJobStore>, objects: ObjectStore) {
  for (const id of await jobs.dueForExpiry(Date.now())) {
    await objects.removeAll(id);
    await jobs.forgetExpiry(id);
  }
}
