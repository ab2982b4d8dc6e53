/**
 * The floor of the design's shape, adapter half: a NATS queue subscriber that fetches the upstream
 * path each message names with an undici pool and replies with the page's bytes. No parsing, no
 * cursor, no logs.
 */
import { connectNats, createLogger } from "@rda/service-kit";
import { Pool } from "undici";

const subject = process.env.FLOOR_SUBJECT ?? "floor.page";
const upstream = new URL(process.env.UPSTREAM_URL!);
const pool = new Pool(upstream.origin, { connections: 16, keepAliveTimeout: 30_000 });
const nats = await connectNats(
  process.env.NATS_URL!,
  "floor-responder",
  createLogger("floor-responder", { level: "warn" }),
);
nats.subscribe(subject, {
  queue: "floor",
  callback: (error, message) => {
    if (error) return;
    void pool.request({ method: "GET", path: message.string() }).then(async (response) => {
      message.respond(new Uint8Array(await response.body.arrayBuffer()));
    });
  },
});
process.on(
  "SIGTERM",
  () =>
    void nats
      .drain()
      .then(() => pool.close())
      .then(() => process.exit(0)),
);
