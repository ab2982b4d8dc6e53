/**
 * An exports replica process for crash tests (spawned, then killed with -9): main.ts's wiring and
 * environment, with the job queue's ack wait the test passes as JSON in its first argument, so a
 * killed replica's job returns to the queue in seconds rather than production's 30.
 */
import { runMain } from "@rda/service-kit";
import { serveExports } from "../../src/serve.ts";

runMain("exports", () => serveExports(JSON.parse(process.argv[2] ?? "{}")));
