/** The monitors process, as deployed: every setting from the environment (serve.ts). */
import { runMain } from "@rda/service-kit";
import { serveMonitors } from "./serve.ts";

runMain("monitors", () => serveMonitors());
