/**
 * The values files for the NATS and Redis charts: they must parse and keep the settings the ledger and
 * the refund stream depend on (JetStream on disk in a three-node cluster; AOF fsync every second),
 * and the internal plane's security: NATS with the users of deploy/nats/auth.conf (included, every
 * password from the Secret rda-nats-users) and TLS for clients and routes; Redis with the ACL users of
 * deploy/redis/users.acl (the same rules, passwords from rda-redis-users).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { type Identities, NATS_USERS_SECRET, REDIS_USERS_SECRET } from "./credentials.ts";
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

/** The helm command of the operator's guide that hands the chart deploy/nats/auth.conf. */
export const NATS_AUTH_SET_FILE = "--set-file configMap.merge.data.auth\\.conf=deploy/nats/auth.conf";

export function dependencyProblems(
  dependenciesDir: string,
  identities: Identities,
  operatorGuide: string,
): Problem[] {
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
    problems.push(...natsSecurityProblems(nats, natsPath, identities));
    if (!readFileSync(operatorGuide, "utf8").includes(NATS_AUTH_SET_FILE)) {
      problems.push(problem(operatorGuide, `the NATS chart's install must pass ${NATS_AUTH_SET_FILE}`));
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
    problems.push(...redisAclProblems(redis, redisPath, identities));
  }
  return problems;
}

// biome-ignore lint/suspicious/noExplicitAny: chart values are free-form
function natsSecurityProblems(nats: any, where: string, identities: Identities): Problem[] {
  const problems: Problem[] = [];
  const includes = Object.entries(nats.config?.merge ?? {}).filter(([key]) => key.endsWith("$include"));
  if (!includes.some(([, file]) => file === "auth.conf")) {
    problems.push(problem(where, "config.merge must include auth.conf (deploy/nats/auth.conf)"));
  }
  for (const [user, variable] of identities.nats) {
    const ref = nats.container?.env?.[variable]?.valueFrom?.secretKeyRef;
    if (ref?.name !== NATS_USERS_SECRET || ref?.key !== user) {
      problems.push(
        problem(where, `container.env.${variable} must come from Secret ${NATS_USERS_SECRET}, key ${user}`),
      );
    }
  }
  if (nats.config?.nats?.tls?.enabled !== true || !nats.config?.nats?.tls?.secretName) {
    problems.push(problem(where, "clients must speak TLS: config.nats.tls with a secretName"));
  }
  const routes = nats.config?.cluster?.tls;
  if (routes?.enabled !== true || !routes?.secretName || routes?.merge?.verify !== true) {
    problems.push(
      problem(where, "routes must speak TLS and present a certificate: config.cluster.tls, verify"),
    );
  }
  if (nats.tlsCA?.enabled !== true || !nats.tlsCA?.secretName) {
    problems.push(problem(where, "tlsCA must name the Secret of the CA that checks the routes"));
  }
  return problems;
}

// biome-ignore lint/suspicious/noExplicitAny: chart values are free-form
function redisAclProblems(redis: any, where: string, identities: Identities): Problem[] {
  const problems: Problem[] = [];
  const acl = redis.auth?.acl;
  if (acl?.enabled !== true || acl?.userSecret !== REDIS_USERS_SECRET) {
    problems.push(problem(where, `auth.acl must be enabled with userSecret ${REDIS_USERS_SECRET}`));
  }
  const users = new Map(
    ((acl?.users ?? []) as Record<string, string>[]).map((user) => [user.username, user] as const),
  );
  for (const [name, rules] of identities.redis) {
    if (name === "default") continue;
    const user = users.get(name);
    const same =
      user?.enabled === "on" &&
      user?.keys === rules.keys &&
      user?.channels === rules.channels &&
      user?.commands === rules.commands;
    if (!same)
      problems.push(problem(where, `auth.acl.users ${name} must carry the rules of deploy/redis/users.acl`));
    users.delete(name);
  }
  for (const name of users.keys()) {
    problems.push(problem(where, `auth.acl.users ${name} is no user of deploy/redis/users.acl`));
  }
  return problems;
}
