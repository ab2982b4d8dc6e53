/**
 * The floor of the design's shape, edge half: a fastify server that sends each request's path and
 * query in one NATS request and answers with whatever comes back. No auth, no admission, no
 * validation, no envelope, no logs.
 */
import { connectNats, createLogger, requestRaw } from "@rda/service-kit";
import Fastify from "fastify";

const port = Number(process.env.PORT ?? 0);
const subject = process.env.FLOOR_SUBJECT ?? "floor.page";
const nats = await connectNats(
  process.env.NATS_URL!,
  "floor-edge",
  createLogger("floor-edge", { level: "warn" }),
);
const app = Fastify({ logger: false });
app.get("/*", async (request, reply) => {
  const answer = await requestRaw(nats, subject, request.url, 5_000);
  if (!answer.ok) return reply.code(502).send({ error: answer.error.message });
  return reply
    .type("application/json")
    .send(Buffer.from(answer.value.buffer, answer.value.byteOffset, answer.value.byteLength));
});
await app.listen({ port, host: "127.0.0.1" });
process.on(
  "SIGTERM",
  () =>
    void app
      .close()
      .then(() => nats.close())
      .then(() => process.exit(0)),
);
