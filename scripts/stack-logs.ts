/**
 * How `pnpm start` shows its services' log lines and its own. The services always write JSON (what a
 * log collector wants). In a terminal the supervisor pretty-prints each line with pino-pretty for a
 * person, behind the service's name. Piped to a file or another program, every line is one JSON
 * object and nothing else, so `jq` reads the stream: a service's JSON passes through unchanged (it
 * names its `service`), and any other line — the capture inbox's plain text, a crash's stack trace,
 * the supervisor's own messages — is wrapped in an object that names where it came from.
 * LOG_FORMAT=pretty or json overrides the choice.
 */
import pinoPretty from "pino-pretty";

export type LogFormat = "pretty" | "json";

/** LOG_FORMAT when set, else pretty on a terminal and JSON otherwise; undefined for a bad value. */
export function chooseLogFormat(setting: string | undefined, terminal: boolean): LogFormat | undefined {
  if (setting === undefined || setting === "") return terminal ? "pretty" : "json";
  return setting === "pretty" || setting === "json" ? setting : undefined;
}

/** Pino's numeric levels, as the services' own lines carry them. */
const LEVELS = { info: 30, error: 50 } as const;
export type Level = keyof typeof LEVELS;

/** One line as a JSON object of its own, for a line that is not one already. */
function wrapped(
  service: string,
  level: Level,
  message: string,
  fields: Record<string, unknown> = {},
): string {
  return JSON.stringify({ level: LEVELS[level], time: Date.now(), service, msg: message, ...fields });
}

function isJsonObject(line: string): boolean {
  if (!line.startsWith("{")) return false;
  try {
    const parsed: unknown = JSON.parse(line);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

/**
 * The whole line shown for one line a service wrote (without the line end): pretty behind its name
 * in colour, or a JSON object. `level` is for a line that is not JSON: info from stdout, error from
 * stderr.
 */
export function serviceLine(
  format: LogFormat,
  name: string,
  colour: number,
): (line: string, level: Level) => string {
  if (format === "json") return (line, level) => (isJsonObject(line) ? line : wrapped(name, level, line));
  const show = lineFormatter(format);
  const prefix = `\u001b[${colour}m[${name}]\u001b[0m `;
  return (line) => `${prefix}${show(line)}`;
}

/** A line of the supervisor's own: `[stack] message` for a person, a JSON object when piped. */
export function supervisorLine(
  format: LogFormat,
  level: Level,
  message: string,
  fields: Record<string, unknown> = {},
): string {
  return format === "json" ? wrapped("stack", level, message, fields) : `[stack] ${message}`;
}

/** Turns one line a service wrote into the text shown (without the prefix or a line end). */
export function lineFormatter(format: LogFormat, colour = true): (line: string) => string {
  if (format === "json") return (line) => line;
  const pretty = pinoPretty.prettyFactory({
    colorize: colour,
    translateTime: "SYS:HH:MM:ss.l",
    // The prefix already names the service; pid and host are the same on every line.
    ignore: "pid,hostname,service",
    singleLine: true,
  });
  // Lines that are not pino JSON (a crash's stack trace) pass through as they are.
  return (line) => (line.startsWith("{") ? pretty(line).trimEnd() : line);
}
