/**
 * The values files for the NATS and Redis charts: they must parse and keep the settings the ledger and
 * the refund stream depend on (JetStream on disk in a three-node cluster; AOF fsync every second).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { type Problem, problem } from "./problems.ts";

// biome-ignore lint/suspicious/noExplicitAny: chart values are free-form
function load(path: string, problems: Problem[]): any {
  try {
    return parse(readFileSync(path, "utf8"));
  } catch (error) {
    problems.push(problem(path, `cannot read: ${(error as Error).message}`));
    return undefined;
  }
}

export function dependencyProblems(dependenciesDir: string): Problem[] {
  const problems: Problem[] = [];
  const natsPath = join(dependenciesDir, "nats-values.yaml");
  const nats = load(natsPath, problems);
  if (nats) {
    if (nats.config?.jetstream?.enabled !== true || nats.config?.jetstream?.fileStore?.enabled !== true) {
      problems.push(problem(natsPath, "JetStream must be enabled with file storage"));
    }
    if (nats.config?.cluster?.enabled !== true || nats.config?.cluster?.replicas !== 3) {
      problems.push(problem(natsPath, "the cluster must be enabled with 3 replicas"));
    }
  }
  const redisPath = join(dependenciesDir, "redis-values.yaml");
  const redis = load(redisPath, problems);
  if (redis) {
    const config = String(redis.commonConfiguration ?? "");
    for (const line of ["appendonly yes", "appendfsync everysec", "maxmemory-policy noeviction"]) {
      if (!config.split("\n").some((candidate) => candidate.trim() === line)) {
        problems.push(problem(redisPath, `commonConfiguration must contain "${line}"`));
      }
    }
    if (redis.auth?.enabled !== true) problems.push(problem(redisPath, "auth must be enabled"));
    if (redis.master?.persistence?.enabled !== true)
      problems.push(problem(redisPath, "persistence must be enabled"));
  }
  return problems;
}
