/** The floor cost of one Node hop: a bare fastify reverse proxy to the simulator, nothing else. */
import httpProxy from "@fastify/http-proxy";
import Fastify from "fastify";

const upstream = process.env.UPSTREAM_URL ?? "http://127.0.0.1:8070";
const port = Number(process.env.PORT ?? 0);
const app = Fastify({ logger: false });
await app.register(httpProxy, { upstream });
await app.listen({ port, host: "127.0.0.1" });
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
