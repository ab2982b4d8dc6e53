/** Process shell of adapter-posts: environment, NATS, health on HEALTH_PORT (default 9102), metrics on METRICS_PORT (default 9202), shutdown. */
import { runAdapterMain } from "@rda/adapter-kit";
import { startAdapterPosts } from "./index.ts";

runAdapterMain("adapter-posts", { health: 9102, metrics: 9202 }, import.meta.url, startAdapterPosts);
