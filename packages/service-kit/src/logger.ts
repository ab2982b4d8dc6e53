/**
 * The pino logger every service uses. API keys never reach a log line: the headers that carry them
 * are redacted, and any key-shaped string in a message or field is masked as a last line of defence.
 */
import { API_KEY_ANYWHERE } from "@rda/contracts";
import { type Logger, pino } from "pino";

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

export function createLogger(service: string, options: LoggerOptions = {}): Logger {
  const settings = {
    level: options.level ?? "info",
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    hooks: { streamWrite: maskApiKeys },
  };
  return options.destination ? pino(settings, options.destination as pino.DestinationStream) : pino(settings);
}

export function maskApiKeys(line: string): string {
  return line.replace(API_KEY_ANYWHERE, "rdk_[redacted]");
}
