import type { FastifyInstance } from "fastify";
import { buildSimApp } from "./app.ts";
import type { BudgetQuirks } from "./budget/budget-quirks.ts";
import type { CorpusOptions } from "./corpus/corpus.ts";
import { generateCorpus } from "./corpus/corpus.ts";
import type { Corpus } from "./corpus/types.ts";
import { CorpusProbe } from "./probe.ts";
import { resolveQuirks, type SimProfile, type SimQuirks } from "./profile.ts";

export interface StartOptions extends CorpusOptions {
  /** Default 0: any free port. */
  readonly port?: number;
  readonly host?: string;
  readonly latencyMs?: number;
  /** Epoch milliseconds; default Date.now. */
  readonly clock?: () => number;
  /** Reuse a corpus already generated (generation takes about a second at scale 1). */
  readonly corpus?: Corpus;
  /** Which upstream to imitate (profile.ts); default `default`. */
  readonly profile?: SimProfile;
  /** Quirks set one by one, over the profile's. */
  readonly quirks?: Partial<SimQuirks>;
  /** How the upstream rations its clients (budget/budget-quirks.ts); default none. */
  readonly budget?: BudgetQuirks;
}

export interface RunningSimulator {
  /** Base URL, e.g. http://127.0.0.1:40123 (no trailing slash): use it as UPSTREAM_URL. */
  readonly url: string;
  readonly corpus: Corpus;
  readonly probe: CorpusProbe;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/** Starts a simulator in-process, for tests of the services that call the upstream. */
export async function startSimulator(options: StartOptions = {}): Promise<RunningSimulator> {
  const corpus = options.corpus ?? generateCorpus(options);
  const clock = options.clock ?? Date.now;
  const quirks = resolveQuirks(options.profile, options.quirks);
  const app = buildSimApp({
    corpus,
    clock,
    latencyMs: options.latencyMs ?? 0,
    quirks,
    budget: options.budget,
  });
  const host = options.host ?? "127.0.0.1";
  await app.listen({ port: options.port ?? 0, host });
  const address = app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    corpus,
    probe: new CorpusProbe(corpus, clock),
    app,
    close: () => app.close(),
  };
}
