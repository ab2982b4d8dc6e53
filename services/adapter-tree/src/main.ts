/** Process shell of adapter-tree: environment, NATS, health on HEALTH_PORT (default 9103), shutdown. */
import { runAdapterMain } from "@rda/upstream-client";
import { startAdapterTree } from "./index.ts";

runAdapterMain("adapter-tree", 9103, startAdapterTree);
