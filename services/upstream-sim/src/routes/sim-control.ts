import type { FastifyInstance } from "fastify";
import type { ActiveFault } from "../faults/fault-registry.ts";
import { faultSpecSchema } from "../faults/fault-registry.ts";
import { sendError } from "../http/responses.ts";
import type { SimDeps } from "./deps.ts";

/** Fault control and statistics (docs/operations.md#fault-control). */
export function registerSimControl(app: FastifyInstance, deps: SimDeps): void {
  app.post("/__sim/faults", (request, reply) => {
    const parsed = faultSpecSchema.safeParse(request.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return void sendError(
        reply,
        400,
        `Invalid fault: ${issue?.path.join(".") || "body"}: ${issue?.message}`,
      );
    }
    const fault = deps.faults.add(parsed.data);
    reply.code(201).send({ fault: describe(fault), faults: deps.faults.list().map(describe) });
  });

  app.get("/__sim/faults", (_request, reply) => {
    reply.send({ faults: deps.faults.list().map(describe) });
  });

  app.delete("/__sim/faults", (_request, reply) => {
    deps.faults.clear();
    reply.send({ faults: [] });
  });

  app.get("/__sim/stats", (_request, reply) => {
    reply.send(statsOf(deps));
  });

  app.delete("/__sim/stats", (_request, reply) => {
    deps.stats.reset();
    deps.faults.resetCounter();
    deps.budget?.resetCounters();
    reply.send(statsOf(deps));
  });

  app.get("/__sim/health", (_request, reply) => {
    reply.send({ ok: true, ...corpusSummary(deps) });
  });
}

/** The request counters, and the budget's when its quirks are on. */
function statsOf(deps: SimDeps) {
  const snapshot = deps.stats.snapshot(deps.faults.injected);
  return deps.budget ? { ...snapshot, budget: deps.budget.counters() } : snapshot;
}

function describe(fault: ActiveFault) {
  return { id: fault.id, ...fault.spec, remaining: fault.remaining, injected: fault.injected };
}

export function corpusSummary(deps: Pick<SimDeps, "corpus">) {
  const { corpus } = deps;
  return {
    seed: corpus.seed,
    anchor: corpus.anchor,
    subreddits: corpus.subreddits.length,
    users: corpus.users.length,
    posts: corpus.posts.count,
    comments: corpus.comments.count,
    generation_ms: corpus.generationMs,
  };
}
