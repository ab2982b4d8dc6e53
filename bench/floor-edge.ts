/**
 * The floor of the design's shape, edge half: a fastify server that sends each request's path and
 * query in one NATS request and answers with whatever comes back. No auth, no validation, no
 * envelope, no logs. Admission only when the request names a key in `x-floor-key-id`: then one
 * free `billing.admit` (as /v1/account's) goes first, so the bench can tell what that round trip
 * adds to the floor.
 */
import { connectNats, createLogger, requestRaw } from "@rda/service-kit";
import Fastify from "fastify";

const port = Number(process.env.PORT ?? 0);
const subject = process.env.FLOOR_SUBJECT ?? "floor.page";
const admitSubject = process.env.FLOOR_ADMIT_SUBJECT ?? "billing.admit";
let admissions = 0;
const nats = await connectNats(
  process.env.NATS_URL!,
  "floor-edge",
  createLogger("floor-edge", { level: "warn" }),
);
const app = Fastify({ logger: false });
app.get("/*", async (request, reply) => {
  const keyId = request.headers["x-floor-key-id"];
  if (typeof keyId === "string" && !(await admitted(keyId)))
    return reply.code(503).send({ error: "not admitted" });
  const answer = await requestRaw(nats, subject, request.url, 5_000);
  if (!answer.ok) return reply.code(502).send({ error: answer.error.message });
  return reply
    .type("application/json")
    .send(Buffer.from(answer.value.buffer, answer.value.byteOffset, answer.value.byteLength));
});

async function admitted(keyId: string): Promise<boolean> {
  const request = {
    key_id: keyId,
    request_id: `floor-${process.pid}-${++admissions}`,
    operation: "getAccount",
    credits: 0,
    pending_ms: 60_000,
  };
  const answer = await requestRaw(nats, admitSubject, JSON.stringify(request), 5_000);
  return (
    answer.ok &&
    (JSON.parse(new TextDecoder().decode(answer.value)) as { outcome?: string }).outcome === "admitted"
  );
}

await app.listen({ port, host: "127.0.0.1" });
process.on(
  "SIGTERM",
  () =>
    void app
      .close()
      .then(() => nats.close())
      .then(() => process.exit(0)),
);
