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
import { createInbox, type Msg, type NatsConnection } from "@nats-io/transport-node";
import { err, ok, type Result } from "@rda/contracts";
import { isNatsConnected, type NatsRequestFailure, readServiceError } from "./nats.ts";
import { PROGRESS_HEADER } from "./nats-service.ts";
import { traceHeaders } from "./nats-trace.ts";
import { inSpan, SpanKind, tracingActive } from "./tracing.ts";

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
  if (!tracingActive()) return send(connection, subject, payload, options, false);
  return inSpan(
    subject,
    {
      kind: SpanKind.CLIENT,
      attributes: { "messaging.system": "nats", "messaging.destination.name": subject },
    },
    () => send(connection, subject, payload, options, true),
    (answer) => (answer.ok ? undefined : answer.error.kind),
  );
}

function send(
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
