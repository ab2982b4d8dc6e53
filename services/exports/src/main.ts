/** The exports process, as deployed: every setting from the environment (serve.ts). */
import { runMain } from "@rda/service-kit";
import { serveExports } from "./serve.ts";

runMain("exports", () => serveExports());
