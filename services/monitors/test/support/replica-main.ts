/**
 * A monitors replica process for crash tests (spawned, then killed with -9): main.ts's wiring and
 * environment, with the loops' tick and lease lengths the test passes as JSON in its first argument,
 * so a successor takes a dead replica's work over in seconds rather than production's minutes.
 */
import { runMain } from "@rda/service-kit";
import { serveMonitors } from "../../src/serve.ts";

runMain("monitors", () => serveMonitors(JSON.parse(process.argv[2] ?? "{}")));
