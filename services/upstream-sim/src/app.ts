import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import Fastify, { LogController } from "fastify";
import { BudgetGate } from "./budget/budget-gate.ts";
import { type BudgetQuirks, hasBudgetQuirks } from "./budget/budget-quirks.ts";
import type { Corpus } from "./corpus/types.ts";
import { Messages } from "./errors.ts";
import { FaultRegistry } from "./faults/fault-registry.ts";
import { HeldRequests } from "./faults/held-requests.ts";
import { RequestStats } from "./http/request-stats.ts";
import { sendError } from "./http/responses.ts";
import { resolveQuirks, type SimQuirks } from "./profile.ts";
import { stringifyOldEpochs, TransientEmptyPages } from "./quirks/data-quirks.ts";
import { Renderer } from "./render/renderer.ts";
import { registerAggregateRoutes } from "./routes/aggregate.ts";
import { registerCommentRoutes } from "./routes/comments.ts";
import { registerCommunityRoutes } from "./routes/communities.ts";
import type { SimDeps } from "./routes/deps.ts";
import { registerPostRoutes } from "./routes/posts.ts";
import { registerSimControl } from "./routes/sim-control.ts";
import { registerTrafficHook } from "./routes/traffic.ts";

export interface SimAppOptions {
  readonly corpus: Corpus;
  /** Epoch milliseconds; decides what has "arrived" and what is in the blackout. Default Date.now. */
  readonly clock?: () => number;
  /** Added to every upstream answer (not to /__sim). */
  readonly latencyMs?: number;
  readonly logger?: FastifyBaseLogger;
  /** The upstream's quirks to imitate (profile.ts); default: the `default` profile, none. */
  readonly quirks?: SimQuirks;
  /** How the upstream rations its clients; default none. */
  readonly budget?: BudgetQuirks;
}

/** The simulator as a value: no environment, no listening. main.ts and startSimulator() run it. */
export function buildSimApp(options: SimAppOptions): FastifyInstance {
  const app: FastifyInstance = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // One log line per request would cost more than answering it.
    logController: new LogController({ disableRequestLogging: true }),
  });
  const quirks = options.quirks ?? resolveQuirks();
  const deps: SimDeps = {
    corpus: options.corpus,
    renderer: new Renderer(options.corpus),
    clock: options.clock ?? Date.now,
    latencyMs: options.latencyMs ?? 0,
    faults: new FaultRegistry(options.corpus.seed),
    stats: new RequestStats(),
    held: new HeldRequests(),
    quirks,
    emptyPages: new TransientEmptyPages(options.corpus.seed, quirks.transientEmptyPageRate),
    ...(options.budget && hasBudgetQuirks(options.budget) ? { budget: new BudgetGate(options.budget) } : {}),
  };
  registerTrafficHook(app, deps);
  registerStringEpochs(app, quirks.stringEpochsBefore);
  registerPostRoutes(app, deps);
  registerAggregateRoutes(app, deps);
  registerCommentRoutes(app, deps);
  registerCommunityRoutes(app, deps);
  registerSimControl(app, deps);
  app.setNotFoundHandler((_request, reply) => void sendError(reply, 404, Messages.notFound));
  app.setErrorHandler((error, _request, reply) => {
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    const clientError = status >= 400 && status < 500;
    if (!clientError) app.log.error({ err: error }, "request failed");
    const message = clientError && error instanceof Error ? error.message : Messages.serverError;
    sendError(reply, clientError ? status : 500, message);
  });
  app.addHook("preClose", (done) => {
    deps.held.releaseAll();
    done();
  });
  return app;
}

/** Old epochs leave as strings on every upstream answer, whichever route built it (profile.ts). */
function registerStringEpochs(app: FastifyInstance, before: number | undefined): void {
  if (before === undefined) return;
  app.addHook("onSend", (request, _reply, payload, done) => {
    const upstream = request.raw.url?.startsWith("/api/") ?? false;
    done(null, upstream && typeof payload === "string" ? stringifyOldEpochs(payload, before) : payload);
  });
}
