/** The upstream simulator's environment (docs/settings.md), validated once at start by main.ts. */
import { env, observabilityEnv } from "@rda/service-kit";
import { z } from "zod";
import { budgetQuirkFlags } from "./budget/budget-quirks.ts";
import { DEFAULT_SEED } from "./corpus/corpus.ts";
import { quirkEnvShape } from "./profile.ts";

export const simConfigShape = {
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
