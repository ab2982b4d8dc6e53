/** Process shell of adapter-users: environment, NATS, health on HEALTH_PORT (default 9105), shutdown. */
import { runAdapterMain } from "@rda/upstream-client";
import { startAdapterUsers } from "./index.ts";

runAdapterMain("adapter-users", 9105, startAdapterUsers);
