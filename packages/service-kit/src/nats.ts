/**
 * The NATS connection every service uses, and the one way to ask a service over NATS. The connection
 * reconnects forever (a NATS restart is an outage to ride out, not a reason to exit), logs state
 * changes, and drains on shutdown so in-flight replies land. Its state is followed from the client's
 * status events, so readiness says "disconnected" while it is, and a request made meanwhile fails at
 * once (`offline`) instead of waiting out its timeout in the client's buffer.
 *
 * Asking a service through its table of calls (rpc.ts in @rda/contracts): `rpcCaller` pairs each
 * entry's subject with its reply schema, so the caller cannot pair them differently from the
 * serving side. Billing (`billingCaller`), monitors and exports are asked this way. Failures are
 * `NatsRequestFailure` values, as with `requestJson`.
 */
import {
  connect,
  createInbox,
  headers,
  type Msg,
  type NatsConnection,
  RequestError,
  TimeoutError,
} from "@nats-io/transport-node";
import {
  BILLING_RPC,
  type BillingRpcName,
  decodeJson,
  err,
  ok,
  type Result,
  type RpcReply,
  type RpcRequest,
  type RpcTable,
  type Subjects,
} from "@rda/contracts";
import type { z } from "zod";
import type { NatsIdentity } from "./config.ts";
import type { Logger } from "./logger.ts";
import { PROGRESS_HEADER } from "./nats-service.ts";
import { traceHeaders } from "./nats-trace.ts";
import { inSpan, SpanKind, tracingActive } from "./tracing.ts";

export type { NatsConnection };

/**
 * The inbox prefix of a NATS user: replies to its requests travel on `_INBOX_<user>.…`, which only
 * that user may subscribe to (deploy/nats/auth.conf), so no other identity can read them — a new
 * key's secret among them. Without a user (a local NATS), the default `_INBOX`.
 */
export function inboxPrefixOf(identity: NatsIdentity | undefined): string {
  return identity ? `_INBOX_${identity.user}` : "_INBOX";
}

/** `identity`: the service's NATS user and password (NATS_USER/NATS_PASSWORD); none for a plain NATS. */
export async function connectNats(
  url: string,
  name: string,
  logger: Logger,
  identity?: NatsIdentity,
): Promise<NatsConnection> {
  const connection = await connect({
    servers: url.split(",").map((server) => server.trim()),
    name,
    ...(identity && { user: identity.user, pass: identity.password, inboxPrefix: inboxPrefixOf(identity) }),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
    // Capturing an async stack for every request allocates two Error objects per call: ~7% of the
    // gateway's CPU on the hot path. Failures are classified as values (requestRaw), not traced.
    noAsyncTraces: true,
  });
  logger.info({ server: connection.getServer(), user: identity?.user }, "connected to NATS");
  followStatus(connection, logger);
  return connection;
}

/**
 * Whether each followed connection is attached to a server now. `getServer()` cannot say: it names
 * the last server even while the client is between reconnection attempts.
 */
const attached = new WeakMap<NatsConnection, boolean>();

function followStatus(connection: NatsConnection, logger?: Logger): void {
  if (attached.has(connection)) return;
  attached.set(connection, true);
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === "disconnect") attached.set(connection, false);
      else if (status.type === "reconnect") attached.set(connection, true);
      if (status.type === "disconnect" || status.type === "error")
        logger?.warn({ nats: status }, "NATS connection problem");
      else if (status.type === "reconnect") logger?.info({ nats: status }, "reconnected to NATS");
    }
  })();
}

/** A connection not made by `connectNats` (a test's) is followed from its first check on. */
export function isNatsConnected(connection: NatsConnection): boolean {
  followStatus(connection);
  return !connection.isClosed() && !connection.isDraining() && attached.get(connection) === true;
}

/**
 * Why a request got no usable answer. "No responders" (nobody serves the subject) and "timeout"
 * (someone does but was too slow) are told apart, as they mean different things to an operator;
 * `service_error` is the responder's own failure, sent as data (see `respondWithError` below) with its code.
 */
export interface NatsRequestFailure {
  /** `offline`: the connection was down, so nothing was sent; `disconnected`: the request failed mid-way. */
  readonly kind:
    | "no_responders"
    | "timeout"
    /** The responder went silent mid-request (requestWithProgress): it died or was cut off. */
    | "lost"
    | "offline"
    | "disconnected"
    | "malformed_reply"
    | "service_error";
  readonly message: string;
  /** For `service_error`: 400 the request was refused, 503 the responder's store is down, 500 a bug. */
  readonly code?: number;
}

/** A JSON request whose reply is decoded with its contract schema. */
export async function requestJson<S extends z.ZodType>(
  connection: NatsConnection,
  subject: string,
  payload: unknown,
  replySchema: S,
  timeoutMs: number,
): Promise<Result<z.output<S>, NatsRequestFailure>> {
  const raw = await requestRaw(connection, subject, JSON.stringify(payload), timeoutMs);
  if (!raw.ok) return raw;
  const decoded = decodeJson(raw.value, replySchema);
  if (decoded.ok) return decoded;
  return err({ kind: "malformed_reply", message: `malformed reply on ${subject}: ${decoded.error}` });
}

/** With tracing on, the request is a client span whose context travels in the message headers. */
export function requestRaw(
  connection: NatsConnection,
  subject: string,
  payload: string | Uint8Array,
  timeoutMs: number,
): Promise<Result<Uint8Array, NatsRequestFailure>> {
  if (!tracingActive()) return send(connection, subject, payload, timeoutMs);
  return inSpan(
    subject,
    {
      kind: SpanKind.CLIENT,
      attributes: { "messaging.system": "nats", "messaging.destination.name": subject },
    },
    () => send(connection, subject, payload, timeoutMs, true),
    (answer) => (answer.ok ? undefined : answer.error.kind),
  );
}

async function send(
  connection: NatsConnection,
  subject: string,
  payload: string | Uint8Array,
  timeoutMs: number,
  traced = false,
): Promise<Result<Uint8Array, NatsRequestFailure>> {
  if (attached.get(connection) === false) {
    return err({ kind: "offline", message: `not connected to NATS: ${subject} was not sent` });
  }
  try {
    const options = traced ? { timeout: timeoutMs, headers: traceHeaders() } : { timeout: timeoutMs };
    const reply = await connection.request(subject, payload, options);
    const failure = readServiceError(reply);
    return failure ? err({ kind: "service_error", ...failure }) : ok(reply.data);
  } catch (error) {
    if (error instanceof RequestError && error.isNoResponders()) {
      return err({ kind: "no_responders", message: `no service answers ${subject}` });
    }
    if (error instanceof TimeoutError) {
      return err({ kind: "timeout", message: `${subject} did not answer within ${timeoutMs} ms` });
    }
    return err({ kind: "disconnected", message: `NATS request on ${subject} failed: ${String(error)}` });
  }
}

/**
 * A responder's failure travels as data: an empty reply whose headers carry a code and a message, as
 * the nats.js services framework does it (`Nats-Service-Error`, `Nats-Service-Error-Code`). Every
 * requester decodes it the same way, whatever the subject's normal reply looks like.
 */
const ERROR_HEADER = "Nats-Service-Error";
const CODE_HEADER = "Nats-Service-Error-Code";

/** Thrown by a handler for an expected refusal: the code and message reach the requester. */
export class ServiceError extends Error {
  constructor(
    /** HTTP-like: 400 the request was refused, 503 a dependency of the responder is down. */
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

export function respondWithError(message: Msg, code: number, text: string): void {
  const failure = headers();
  failure.set(ERROR_HEADER, text.replace(/[\r\n]+/g, " ").slice(0, 500));
  failure.set(CODE_HEADER, String(code));
  message.respond(new Uint8Array(), { headers: failure });
}

export function readServiceError(reply: Msg): { code: number; message: string } | undefined {
  const message = reply.headers?.get(ERROR_HEADER);
  if (!message) return undefined;
  const code = Number(reply.headers?.get(CODE_HEADER));
  return { code: Number.isInteger(code) ? code : 500, message };
}

/**
 * A NATS request whose responder may take long, and says it is alive meanwhile: it sends progress
 * messages (serveSubject's `progressEveryMs`) until its reply. The requester gives up as soon as
 * the responder has been silent for `silenceMs` (`lost`: it died or was cut off), so a long allowed
 * time (`timeoutMs`) no longer means a long wait for a dead responder.
 *
 * Replies arrive on one wildcard subscription per connection under its inbox prefix (the user's
 * private `_INBOX_<user>.`), matched to their request by the last subject token, like the client's
 * own request multiplexer: no subscription is made per request.
 */
interface ReplyMux {
  readonly prefix: string;
  readonly waiting: Map<string, (message: Msg) => void>;
  next: number;
}

const muxes = new WeakMap<NatsConnection, ReplyMux>();

function muxOf(connection: NatsConnection): ReplyMux {
  const known = muxes.get(connection);
  if (known) return known;
  const inboxPrefix = (connection as { options?: { inboxPrefix?: string } }).options?.inboxPrefix;
  const prefix = `${createInbox(inboxPrefix || "_INBOX")}.`;
  const mux: ReplyMux = { prefix, waiting: new Map(), next: 0 };
  connection.subscribe(`${prefix}*`, {
    callback: (error, message) => {
      if (error) return;
      mux.waiting.get(message.subject.slice(prefix.length))?.(message);
    },
  });
  muxes.set(connection, mux);
  return mux;
}

export interface ProgressRequestOptions {
  /** The longest the whole request may take. */
  readonly timeoutMs: number;
  /** The longest the responder may stay silent (no progress, no reply) before it counts as lost. */
  readonly silenceMs: number;
}

export function requestWithProgress(
  connection: NatsConnection,
  subject: string,
  payload: string | Uint8Array,
  options: ProgressRequestOptions,
): Promise<Result<Uint8Array, NatsRequestFailure>> {
  if (!tracingActive()) return sendWithProgress(connection, subject, payload, options, false);
  return inSpan(
    subject,
    {
      kind: SpanKind.CLIENT,
      attributes: { "messaging.system": "nats", "messaging.destination.name": subject },
    },
    () => sendWithProgress(connection, subject, payload, options, true),
    (answer) => (answer.ok ? undefined : answer.error.kind),
  );
}

function sendWithProgress(
  connection: NatsConnection,
  subject: string,
  payload: string | Uint8Array,
  options: ProgressRequestOptions,
  traced: boolean,
): Promise<Result<Uint8Array, NatsRequestFailure>> {
  if (!isNatsConnected(connection))
    return Promise.resolve(
      err({ kind: "offline", message: `not connected to NATS: ${subject} was not sent` }),
    );
  const mux = muxOf(connection);
  mux.next += 1;
  const token = mux.next.toString(36);
  return new Promise((resolve) => {
    let silence: NodeJS.Timeout;
    let done = false;
    const finish = (result: Result<Uint8Array, NatsRequestFailure>) => {
      if (done) return;
      done = true;
      clearTimeout(silence);
      clearTimeout(overall);
      mux.waiting.delete(token);
      resolve(result);
    };
    let heardAt = Date.now();
    // A timer that fires late (this process was busy) runs before the messages that arrived
    // meanwhile are read: the verdict waits for one turn of I/O, so a stall here is not a death there.
    const judge = () => {
      if (done) return;
      const quietMs = Date.now() - heardAt;
      if (quietMs < options.silenceMs) {
        silence = setTimeout(judgeAfterIo, options.silenceMs - quietMs);
        return;
      }
      const message = `${subject} went silent for ${quietMs} ms: its responder is gone`;
      finish(err({ kind: "lost", message }));
    };
    const judgeAfterIo = () => setImmediate(judge);
    const listen = () => {
      heardAt = Date.now();
      clearTimeout(silence);
      silence = setTimeout(judgeAfterIo, options.silenceMs);
    };
    const overall = setTimeout(() => {
      finish(err({ kind: "timeout", message: `${subject} did not answer within ${options.timeoutMs} ms` }));
    }, options.timeoutMs);
    listen();
    mux.waiting.set(token, (message) => {
      if (message.headers?.get(PROGRESS_HEADER)) return listen();
      if (message.data.length === 0 && message.headers?.status === "503")
        return finish(err({ kind: "no_responders", message: `no service answers ${subject}` }));
      const failure = readServiceError(message);
      finish(failure ? err({ kind: "service_error", ...failure }) : ok(message.data));
    });
    try {
      connection.publish(subject, payload, {
        reply: `${mux.prefix}${token}`,
        ...(traced ? { headers: traceHeaders() } : {}),
      });
    } catch (error) {
      finish(err({ kind: "disconnected", message: `NATS request on ${subject} failed: ${String(error)}` }));
    }
  });
}

export type RpcAnswer<T extends RpcTable, N extends keyof T> = Promise<
  Result<RpcReply<T, N>, NatsRequestFailure>
>;

export interface RpcCaller<T extends RpcTable> {
  /** Sends one call; `timeoutMs` overrides the caller's default (a slow `verifyLedger`, a quote). */
  call<N extends keyof T & string>(name: N, request: RpcRequest<T, N>, timeoutMs?: number): RpcAnswer<T, N>;
}

export function rpcCaller<T extends RpcTable>(
  nats: NatsConnection,
  table: T,
  subjects: { readonly [N in keyof T]: string },
  timeoutMs: number,
): RpcCaller<T> {
  return {
    call(name, request, timeout = timeoutMs) {
      const { reply } = table[name] as T[typeof name];
      return requestJson(nats, subjects[name], request, reply, timeout) as RpcAnswer<T, typeof name>;
    },
  };
}

export type BillingAnswer<N extends BillingRpcName> = RpcAnswer<typeof BILLING_RPC, N>;
export type BillingCaller = RpcCaller<typeof BILLING_RPC>;

export function billingCaller(nats: NatsConnection, subjects: Subjects, timeoutMs: number): BillingCaller {
  return rpcCaller(nats, BILLING_RPC, subjects.billing, timeoutMs);
}
