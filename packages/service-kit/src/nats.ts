/**
 * The NATS connection every service uses: reconnects forever (a NATS restart is an outage to ride
 * out, not a reason to exit), logs state changes, and drains on shutdown so in-flight replies land.
 */
import { connect, type NatsConnection, RequestError, TimeoutError } from "@nats-io/transport-node";
import type { z } from "zod";
import type { Logger } from "./logger.ts";

export type { NatsConnection };

export async function connectNats(url: string, name: string, logger: Logger): Promise<NatsConnection> {
  const connection = await connect({
    servers: url.split(",").map((server) => server.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
    // Capturing an async stack for every request allocates two Error objects per call: ~7% of the
    // gateway's CPU on the hot path. Failures are classified as values (requestRaw), not traced.
    noAsyncTraces: true,
  });
  logger.info({ server: connection.getServer() }, "connected to NATS");
  void watchStatus(connection, logger);
  return connection;
}

async function watchStatus(connection: NatsConnection, logger: Logger): Promise<void> {
  for await (const status of connection.status()) {
    if (status.type === "disconnect" || status.type === "error")
      logger.warn({ nats: status }, "NATS connection problem");
    else if (status.type === "reconnect") logger.info({ nats: status }, "reconnected to NATS");
  }
}

export function isNatsConnected(connection: NatsConnection): boolean {
  return !connection.isClosed() && !connection.isDraining() && connection.getServer() !== "";
}

export type NatsRequestOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; failure: "no_responders" | "timeout" | "disconnected" | "malformed_reply"; message: string };

/**
 * A JSON request whose reply is validated. "No responders" (nobody serves the subject) and "timeout"
 * (someone does but was too slow) are told apart, as they mean different things to an operator.
 */
export async function requestJson<T>(
  connection: NatsConnection,
  subject: string,
  payload: unknown,
  replySchema: z.ZodType<T>,
  timeoutMs: number,
): Promise<NatsRequestOutcome<T>> {
  const raw = await requestRaw(connection, subject, JSON.stringify(payload), timeoutMs);
  if (!raw.ok) return raw;
  try {
    return { ok: true, value: replySchema.parse(JSON.parse(new TextDecoder().decode(raw.value))) };
  } catch (error) {
    return {
      ok: false,
      failure: "malformed_reply",
      message: `malformed reply on ${subject}: ${String(error)}`,
    };
  }
}

export async function requestRaw(
  connection: NatsConnection,
  subject: string,
  payload: string | Uint8Array,
  timeoutMs: number,
): Promise<NatsRequestOutcome<Uint8Array>> {
  try {
    const reply = await connection.request(subject, payload, { timeout: timeoutMs });
    return { ok: true, value: reply.data };
  } catch (error) {
    if (error instanceof RequestError && error.isNoResponders()) {
      return { ok: false, failure: "no_responders", message: `no service answers ${subject}` };
    }
    if (error instanceof TimeoutError) {
      return { ok: false, failure: "timeout", message: `${subject} did not answer within ${timeoutMs} ms` };
    }
    return {
      ok: false,
      failure: "disconnected",
      message: `NATS request on ${subject} failed: ${String(error)}`,
    };
  }
}
