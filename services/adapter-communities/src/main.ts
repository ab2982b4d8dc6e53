/** Process shell of adapter-communities: environment, NATS, health on HEALTH_PORT (default 9104), metrics on METRICS_PORT (default 9204), shutdown. */
import { runAdapterMain } from "@rda/adapter-kit";
import { startAdapterCommunities } from "./index.ts";

runAdapterMain(
  "adapter-communities",
  { health: 9104, metrics: 9204 },
  import.meta.url,
  startAdapterCommunities,
);
