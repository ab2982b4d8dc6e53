/** Process shell of adapter-posts: environment, NATS, health on HEALTH_PORT (default 9102), shutdown. */
import { runAdapterMain } from "@rda/upstream-client";
import { startAdapterPosts } from "./index.ts";

runAdapterMain("adapter-posts", 9102, startAdapterPosts);
