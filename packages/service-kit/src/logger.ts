/**
 * The pino logger every service uses. API keys never reach a log line: the headers that carry them
 * are redacted, and any key-shaped string in a message or field is masked as a last line of defence.
 * While tracing is on, every line written inside a request carries its `trace_id`, `span_id` and the
 * gateway's `request_id` (unless the logger already binds one), whichever service writes it.
 */
import { API_KEY_ANYWHERE } from "@rda/contracts";
import { type Logger, pino } from "pino";
import { activeLogFields } from "./tracing.ts";

export type { Logger };

const REDACTED_PATHS = [
  "req.headers.authorization",
  'req.headers["x-api-key"]',
  "headers.authorization",
  'headers["x-api-key"]',
  "*.headers.authorization",
  '*.headers["x-api-key"]',
  "key",
  "api_key",
  "*.key",
  "*.api_key",
];

export interface LoggerOptions {
  level?: string;
  /** Where lines go; tests pass a stream to read what was logged. */
  destination?: NodeJS.WritableStream;
}

/** Lines are written in batches of this many bytes at least, and at least this often. */
const BUFFER_BYTES = 4_096;
const FLUSH_EVERY_MS = 1_000;

export function createLogger(service: string, options: LoggerOptions = {}): Logger {
  const settings = {
    level: options.level ?? "info",
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    hooks: { streamWrite: maskApiKeys },
    mixin: requestFields,
  };
  const destination = options.destination as pino.DestinationStream | undefined;
  // A silent logger writes nothing, so it needs no buffer on standard output, nor its flush timer.
  return pino(settings, destination ?? (settings.level === "silent" ? DISCARD : bufferedStdout()));
}

const DISCARD: pino.DestinationStream = { write: () => {} };

/**
 * Standard output written in batches: a write per log line would cost a system call per request.
 * What is buffered is written within a second, at shutdown (`logger.flush()`), and when the process
 * exits, whatever the reason.
 */
function bufferedStdout(): pino.DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, minLength: BUFFER_BYTES });
  setInterval(() => destination.flush(), FLUSH_EVERY_MS).unref();
  process.once("exit", () => destination.flushSync());
  return destination;
}

export function maskApiKeys(line: string): string {
  return line.replace(API_KEY_ANYWHERE, "rdk_[redacted]");
}

const CHINDINGS = pino.symbols.chindingsSym;

/** pino merges the line's own fields into what this returns: always a fresh object. */
function requestFields(_merge: object, _level: number, logger: Logger): object {
  const fields = activeLogFields();
  if (fields.request_id === undefined) return { ...fields };
  // A child logger bound to the request (the gateway's, an adapter's) already writes request_id.
  const bindings = (logger as unknown as Record<symbol, string | undefined>)[CHINDINGS] ?? "";
  if (!bindings.includes('"request_id":')) return fields;
  const { request_id: _, ...rest } = fields;
  return rest;
}
