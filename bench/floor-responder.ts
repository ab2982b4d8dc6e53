/**
 * The floor of the design's shape, adapter half: a NATS queue subscriber that fetches the upstream
 * path each message names with an undici pool and replies with the page's bytes. No parsing, no
 * cursor, no logs. With FLOOR_FROM_MEMORY=1 it is the cached floor (e2): each path is fetched once
 * and answered from memory ever after.
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
const fromMemory = process.env.FLOOR_FROM_MEMORY === "1";
const remembered = new Map<string, Uint8Array>();
nats.subscribe(subject, {
  queue: "floor",
  callback: (error, message) => {
    if (error) return;
    const path = message.string();
    const known = fromMemory ? remembered.get(path) : undefined;
    if (known) {
      message.respond(known);
      return;
    }
    void pool.request({ method: "GET", path }).then(async (response) => {
      const page = new Uint8Array(await response.body.arrayBuffer());
      if (fromMemory && response.statusCode === 200) remembered.set(path, page);
      message.respond(page);
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
