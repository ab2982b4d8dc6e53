/**
 * Process shell: read and check the environment, generate the corpus, listen,
 * and close cleanly on SIGTERM/SIGINT. A bad variable stops the start naming it.
 */
import {
  createLogger,
  env,
  loadConfig,
  observabilityEnv,
  onShutdown,
  runMain,
  startObservability,
} from "@rda/service-kit";
import { z } from "zod";
import { buildSimApp } from "./app.ts";
import { budgetQuirkFlags, budgetQuirksOf } from "./budget/budget-quirks.ts";
import { DEFAULT_SEED, generateCorpus } from "./corpus/corpus.ts";
import { quirkEnvShape, quirksFromEnv } from "./profile.ts";
import { corpusSummary } from "./routes/sim-control.ts";

const configShape = {
  SIM_PORT: env.port(8070),
  SIM_HOST: env.host(),
  SIM_SEED: env.nonNegativeInt(DEFAULT_SEED),
  SIM_LATENCY_MS: env.nonNegativeInt(0),
  /** Corpus size multiplier; 1 = 30,000 posts and about 300,000 comments. */
  SIM_SCALE: z.coerce.number({ error: "must be a number" }).positive().max(10).default(1),
  /** Epoch seconds to lay the corpus around instead of now: two processes then serve the same data. */
  SIM_ANCHOR: z.coerce.number({ error: "must be epoch seconds" }).int().positive().optional(),
  ...quirkEnvShape,
  ...budgetQuirkFlags,
  LOG_LEVEL: env.logLevel(),
  ...observabilityEnv(9207),
};

runMain("upstream-sim", async () => {
  const config = loadConfig(configShape);
  const observability = await startObservability("upstream-sim", import.meta.url, config);
  const logger = createLogger("upstream-sim", { level: config.LOG_LEVEL });
  const corpus = generateCorpus({
    seed: config.SIM_SEED,
    anchor: config.SIM_ANCHOR,
    scale: config.SIM_SCALE,
  });
  const quirks = quirksFromEnv(config);
  const budget = budgetQuirksOf(config.SIM_PROFILE, config);
  const app = buildSimApp({ corpus, latencyMs: config.SIM_LATENCY_MS, logger, quirks, budget });
  const url = await app.listen({ port: config.SIM_PORT, host: config.SIM_HOST });
  logger.info(
    {
      url,
      latency_ms: config.SIM_LATENCY_MS,
      profile: config.SIM_PROFILE,
      quirks,
      budget,
      ...corpusSummary({ corpus }),
    },
    "upstream simulator listening",
  );
  const metrics = await observability.serveMetrics();
  onShutdown(logger, [
    ["http server", () => app.close()],
    ["metrics server", () => metrics.close()],
  ]);
});
