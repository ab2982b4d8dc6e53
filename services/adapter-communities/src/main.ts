/** Process shell of adapter-communities: environment, NATS, health on HEALTH_PORT (default 9104), shutdown. */
import { runAdapterMain } from "@rda/upstream-client";
import { startAdapterCommunities } from "./index.ts";

runAdapterMain("adapter-communities", 9104, startAdapterCommunities);
