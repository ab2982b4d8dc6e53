/**
 * deploy/observability: the Prometheus alert rules and scrape configuration, and the Grafana
 * dashboard. Checked here: every file parses; the rules pass `promtool check rules` and the compose
 * scrape configuration `promtool check config` (where promtool is installed: CI installs it); the
 * compose job scrapes every service of services/; every dashboard panel queries the provisioned
 * Prometheus data source. That the metric names they use exist is checked against live scrapes by
 * test/stack/observability.test.ts.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { type Problem, problem } from "./problems.ts";

export interface ObservabilityFiles {
  readonly dir: string;
  readonly alerts: string;
  readonly prometheus: string;
  readonly dashboard: string;
  readonly datasource: string;
}

export const observabilityFiles = (dir: string): ObservabilityFiles => ({
  dir,
  alerts: join(dir, "alerts.yml"),
  prometheus: join(dir, "prometheus.yml"),
  dashboard: join(dir, "grafana", "dashboards", "rda.json"),
  datasource: join(dir, "grafana", "provisioning", "datasources", "prometheus.yml"),
});

/** Every PromQL expression of the alert rules and the dashboard, with where it is. */
export function observabilityQueries(files: ObservabilityFiles): { where: string; expr: string }[] {
  const alerts = parse(readFileSync(files.alerts, "utf8")) as AlertFile;
  const rules = (alerts.groups ?? []).flatMap((group) =>
    (group.rules ?? []).map((rule) => ({ where: `${files.alerts} ${rule.alert}`, expr: String(rule.expr) })),
  );
  const panels = dashboardPanels(files).flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({
      where: `${files.dashboard} "${panel.title}"`,
      expr: String(target.expr),
    })),
  );
  return [...rules, ...panels];
}

interface AlertFile {
  groups?: { name: string; rules?: { alert: string; expr: unknown; labels?: Record<string, string> }[] }[];
}
interface Panel {
  type: string;
  title: string;
  datasource?: { uid?: string };
  targets?: { expr?: unknown; datasource?: { uid?: string } }[];
}

function dashboardPanels(files: ObservabilityFiles): Panel[] {
  const dashboard = JSON.parse(readFileSync(files.dashboard, "utf8")) as { panels?: Panel[] };
  return (dashboard.panels ?? []).filter((panel) => panel.type !== "row");
}

export function observabilityProblems(files: ObservabilityFiles, services: readonly string[]): Problem[] {
  const problems: Problem[] = [];
  const read = <T>(path: string, load: (text: string) => T): T | undefined => {
    try {
      return load(readFileSync(path, "utf8"));
    } catch (error) {
      problems.push(problem(path, `cannot be read: ${(error as Error).message}`));
      return undefined;
    }
  };
  const alerts = read(files.alerts, (text) => parse(text) as AlertFile);
  for (const rule of (alerts?.groups ?? []).flatMap((group) => group.rules ?? [])) {
    if (!rule.labels?.severity)
      problems.push(problem(`${files.alerts} ${rule.alert}`, "needs a severity label"));
  }
  const prometheus = read(files.prometheus, (text) => parse(text) as PrometheusConfig);
  const scraped = (prometheus?.scrape_configs ?? [])
    .flatMap((job) => job.dns_sd_configs ?? [])
    .flatMap((sd) => sd.names ?? []);
  for (const name of services.filter((service) => !scraped.includes(service))) {
    problems.push(problem(files.prometheus, `does not scrape ${name}`));
  }
  const datasource = read(files.datasource, (text) => parse(text) as { datasources?: { uid?: string }[] });
  const uid = datasource?.datasources?.[0]?.uid;
  const panels = read(files.dashboard, () => dashboardPanels(files)) ?? [];
  if (panels.length === 0) problems.push(problem(files.dashboard, "has no panels"));
  for (const panel of panels) {
    const where = `${files.dashboard} "${panel.title}"`;
    if ((panel.targets ?? []).length === 0) problems.push(problem(where, "has no query"));
    const uids = [panel.datasource?.uid, ...(panel.targets ?? []).map((target) => target.datasource?.uid)];
    if (uids.some((candidate) => candidate !== uid))
      problems.push(problem(where, `must query the data source ${uid}`));
  }
  return [...problems, ...promtoolProblems(files)];
}

interface PrometheusConfig {
  rule_files?: string[];
  scrape_configs?: { job_name: string; dns_sd_configs?: { names?: string[] }[] }[];
}

/** promtool on the rules, and on the scrape configuration with its rule file pointed at the repo's. */
function promtoolProblems(files: ObservabilityFiles): Problem[] {
  const problems: Problem[] = [];
  const run = (args: string[], where: string) => {
    try {
      execFileSync("promtool", args, { stdio: ["ignore", "pipe", "pipe"] });
    } catch (error) {
      const failure = error as NodeJS.ErrnoException & { stdout?: Buffer; stderr?: Buffer };
      if (failure.code === "ENOENT") return "not installed";
      problems.push(problem(where, `promtool: ${`${failure.stdout ?? ""}${failure.stderr ?? ""}`.trim()}`));
    }
    return "ran";
  };
  if (run(["check", "rules", files.alerts], files.alerts) === "not installed") {
    return [problem(files.dir, "promtool is not installed (apt-get install prometheus)")];
  }
  const scratch = mkdtempSync(join(tmpdir(), "rda-prometheus-"));
  try {
    const config = readFileSync(files.prometheus, "utf8").replace("/etc/prometheus/alerts.yml", files.alerts);
    writeFileSync(join(scratch, "prometheus.yml"), config);
    run(["check", "config", join(scratch, "prometheus.yml")], files.prometheus);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return problems;
}
