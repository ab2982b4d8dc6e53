/** Process shell of adapter-users: environment, NATS, health on HEALTH_PORT (default 9105), metrics on METRICS_PORT (default 9205), shutdown. */
import { runAdapterMain } from "@rda/adapter-kit";
import { startAdapterUsers } from "./index.ts";

runAdapterMain("adapter-users", { health: 9105, metrics: 9205 }, import.meta.url, startAdapterUsers);
