/** Process shell of adapter-tree: environment, NATS, health on HEALTH_PORT (default 9103), metrics on METRICS_PORT (default 9203), shutdown. */
import { runAdapterMain } from "@rda/adapter-kit";
import { startAdapterTree } from "./index.ts";

runAdapterMain("adapter-tree", { health: 9103, metrics: 9203 }, import.meta.url, startAdapterTree);
