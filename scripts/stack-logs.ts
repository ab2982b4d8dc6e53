/**
 * How `pnpm start` shows its services' log lines. The services always write JSON (what a log
 * collector wants); in a terminal the supervisor pretty-prints each line with pino-pretty for a
 * person, and piped to a file or another program it passes the JSON through unchanged. Either way
 * each line keeps its service's name as a prefix. LOG_FORMAT=pretty or json overrides the choice.
 */
import pinoPretty from "pino-pretty";

export type LogFormat = "pretty" | "json";

/** LOG_FORMAT when set, else pretty on a terminal and JSON otherwise; undefined for a bad value. */
export function chooseLogFormat(setting: string | undefined, terminal: boolean): LogFormat | undefined {
  if (setting === undefined || setting === "") return terminal ? "pretty" : "json";
  return setting === "pretty" || setting === "json" ? setting : undefined;
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
