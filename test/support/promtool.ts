/** Prometheus' own checker, from Debian's `prometheus` package (.ci/run installs it when missing). */
import { spawnSync } from "node:child_process";

function promtool(args: string[], input?: string): { status: number | null; output: string } {
  const result = spawnSync("promtool", args, { input, encoding: "utf8" });
  if (result.error) {
    throw new Error(`promtool is needed here (apt-get install prometheus): ${result.error.message}`);
  }
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

/** `promtool check metrics` on a scrape: exit 0 and no output when every metric is well formed. */
export const promtoolCheckMetrics = (text: string) => promtool(["check", "metrics"], text);

/** `promtool check rules FILE`: exit 0 when the alert rules parse and their expressions are valid. */
export const promtoolCheckRules = (path: string) => promtool(["check", "rules", path]);
