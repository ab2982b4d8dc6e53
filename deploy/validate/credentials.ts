/**
 * The internal plane's identities: every NATS user of deploy/nats/auth.conf and Redis ACL user of
 * deploy/redis/users.acl, and the rules that tie the deployment files to them. Each service connects
 * as its own identity with a password from a Secret (Kubernetes) or from the environment of
 * `docker compose` (compose), never from a ConfigMap or the image; the servers get the same
 * passwords from the same places; and every pod is covered by a NetworkPolicy under a default deny.
 */
import { readFileSync } from "node:fs";
import type { ComposeFile } from "./compose.ts";
import type { K8sObject } from "./kubernetes.ts";
import { type Problem, problem } from "./problems.ts";

/** NATS user → the server's environment variable holding its password. */
export type NatsIdentities = ReadonlyMap<string, string>;

/** Redis ACL user → the variable of its password and its rules as the Helm chart takes them. */
export type RedisUsers = ReadonlyMap<
  string,
  { readonly variable: string; readonly keys: string; readonly channels: string; readonly commands: string }
>;

export interface Identities {
  readonly nats: NatsIdentities;
  readonly redis: RedisUsers;
}

/** The Secrets holding each identity's password, one key per user (deploy/README.md, "Secrets"). */
export const NATS_USERS_SECRET = "rda-nats-users";
export const REDIS_USERS_SECRET = "rda-redis-users";

export function natsIdentities(authConf: string): NatsIdentities {
  const users = new Map<string, string>();
  for (const match of authConf.matchAll(/^\s*user:\s*([\w-]+)\s*\n\s*password:\s*\$(\w+)/gm)) {
    users.set(match[1]!, match[2]!);
  }
  return users;
}

export function redisUsers(aclTemplate: string): RedisUsers {
  const users = new Map<string, { variable: string; keys: string; channels: string; commands: string }>();
  for (const line of aclTemplate.split("\n")) {
    const match = /^user (\S+) on >\$\{(\w+)\} (.*)$/.exec(line.trim());
    if (!match) continue;
    const rules = match[3]!.split(/\s+/);
    const pick = (test: (rule: string) => boolean) => rules.filter(test).join(" ");
    users.set(match[1]!, {
      variable: match[2]!,
      // `~pattern`, or `%R~pattern` / `%W~pattern` for read-only / write-only keys.
      keys: pick((rule) => /^(%[RW]+)?~/.test(rule)),
      channels: pick((rule) => rule.startsWith("&") || rule === "resetchannels" || rule === "allchannels"),
      commands: pick((rule) => rule.startsWith("+") || rule.startsWith("-")),
    });
  }
  return users;
}

export function readIdentities(authConfPath: string, aclTemplatePath: string): Identities {
  return {
    nats: natsIdentities(readFileSync(authConfPath, "utf8")),
    redis: redisUsers(readFileSync(aclTemplatePath, "utf8")),
  };
}

/* ---------- Kubernetes ---------- */

// biome-ignore lint/suspicious/noExplicitAny: rendered manifests are walked generically
type Container = any;
type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };

const podSpecOf = (object: K8sObject) =>
  object.kind === "Pod"
    ? object.spec
    : object.kind === "Deployment"
      ? object.spec?.template?.spec
      : undefined;
const podLabelsOf = (object: K8sObject): Record<string, string> =>
  (object.kind === "Pod" ? object.metadata.labels : object.spec?.template?.metadata?.labels) ?? {};
const secretRef = (variable: EnvVar | undefined) => variable?.valueFrom?.secretKeyRef;

/**
 * Each pod that is one of our NATS identities connects as it (NATS_USER, with NATS_PASSWORD from
 * rda-nats-users under that user's key); Redis the same way through REDIS_URL; no password is a
 * literal, and no ConfigMap carries one.
 */
export function kubernetesCredentialProblems(
  objects: readonly K8sObject[],
  source: string,
  identities: Identities,
): Problem[] {
  const problems: Problem[] = [];
  for (const object of objects) {
    const where = `${source} ${object.kind}/${object.metadata.name}`;
    if (object.kind === "ConfigMap") {
      for (const [key, value] of Object.entries(object.data ?? {})) {
        if (/PASSWORD|SECRET|TOKEN/.test(key) || /:\/\/[^/\s@]*:[^/\s@]+@/.test(value)) {
          problems.push(problem(where, `${key}: credentials belong in a Secret, not a ConfigMap`));
        }
      }
    }
    const podSpec = podSpecOf(object);
    if (!podSpec) continue;
    const name = podLabelsOf(object)["app.kubernetes.io/name"] ?? object.metadata.name;
    for (const container of (podSpec.containers ?? []) as Container[]) {
      const env = new Map<string, EnvVar>(
        ((container.env ?? []) as EnvVar[]).map((item) => [item.name, item]),
      );
      for (const variable of env.values()) {
        if (/PASSWORD/.test(variable.name) && !secretRef(variable)) {
          problems.push(problem(where, `${variable.name} must come from a Secret (valueFrom.secretKeyRef)`));
        }
      }
      problems.push(...natsProblems(name, env, identities.nats, where));
      problems.push(...redisProblems(env, identities.redis, where));
    }
  }
  problems.push(...portalSecretProblems(objects, source));
  return problems;
}

/**
 * The portal's credentials at the gateway (PORTAL_GATEWAY_SECRET): the gateway and the portal read
 * the one Secret key, required, and never the key of GATEWAY_INTERNAL_SECRET, so a portal can
 * never mint the MCP service's credentials (which spend on the data routes).
 */
function portalSecretProblems(objects: readonly K8sObject[], source: string): Problem[] {
  type SecretRef = { name: string; key: string; optional?: boolean };
  const refOf = (name: string, variable: string) => {
    const object = objects.find(
      (candidate) => podSpecOf(candidate) && podLabelsOf(candidate)["app.kubernetes.io/name"] === name,
    );
    if (object === undefined) return undefined;
    const containers = (podSpecOf(object).containers ?? []) as Container[];
    const env = containers.flatMap((container) => (container.env ?? []) as EnvVar[]);
    const ref = env.find((item) => item.name === variable)?.valueFrom?.secretKeyRef as SecretRef | undefined;
    return { where: `${source} ${object.kind}/${object.metadata.name}`, ref };
  };
  const gateway = refOf("gateway", "PORTAL_GATEWAY_SECRET");
  const portal = refOf("portal", "PORTAL_GATEWAY_SECRET");
  if (gateway === undefined || portal === undefined) return [];
  const problems: Problem[] = [];
  for (const side of [gateway, portal]) {
    if (side.ref === undefined || side.ref.optional === true)
      problems.push(problem(side.where, "PORTAL_GATEWAY_SECRET must come from a Secret, not optional"));
  }
  if (
    gateway.ref &&
    portal.ref &&
    (gateway.ref.name !== portal.ref.name || gateway.ref.key !== portal.ref.key)
  )
    problems.push(problem(portal.where, "PORTAL_GATEWAY_SECRET must be the gateway's Secret key"));
  const internal = refOf("gateway", "GATEWAY_INTERNAL_SECRET")?.ref;
  if (internal && gateway.ref && internal.name === gateway.ref.name && internal.key === gateway.ref.key)
    problems.push(
      problem(gateway.where, "PORTAL_GATEWAY_SECRET must not be GATEWAY_INTERNAL_SECRET's Secret key"),
    );
  return problems;
}

function natsProblems(name: string, env: Map<string, EnvVar>, nats: NatsIdentities, where: string) {
  const problems: Problem[] = [];
  const user = env.get("NATS_USER")?.value;
  if (nats.has(name) && user !== name) {
    problems.push(problem(where, `must connect to NATS as its own identity: NATS_USER ${name}`));
  }
  if (user === undefined) return problems;
  if (!nats.has(user)) problems.push(problem(where, `NATS_USER ${user} is no user of deploy/nats/auth.conf`));
  const password = secretRef(env.get("NATS_PASSWORD"));
  if (password?.name !== NATS_USERS_SECRET || password.key !== user) {
    problems.push(problem(where, `NATS_PASSWORD must come from Secret ${NATS_USERS_SECRET}, key ${user}`));
  }
  return problems;
}

function redisProblems(env: Map<string, EnvVar>, redis: RedisUsers, where: string) {
  const url = env.get("REDIS_URL")?.value;
  if (url === undefined) return [];
  const user = /^rediss?:\/\/([\w-]+):\$\(REDIS_PASSWORD\)@/.exec(url)?.[1];
  if (!user || user === "default" || !redis.has(user)) {
    return [
      problem(where, "REDIS_URL must name its own user of deploy/redis/users.acl and $(REDIS_PASSWORD)"),
    ];
  }
  const password = secretRef(env.get("REDIS_PASSWORD"));
  if (password?.name !== REDIS_USERS_SECRET || password.key !== user) {
    return [problem(where, `REDIS_PASSWORD must come from Secret ${REDIS_USERS_SECRET}, key ${user}`)];
  }
  return [];
}

/* ---------- NetworkPolicies ---------- */

type LabelSelector = {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
};

function selects(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpression = (selector.matchExpressions ?? []).every((expression) => {
    const value = labels[expression.key];
    if (expression.operator === "In") return value !== undefined && (expression.values ?? []).includes(value);
    if (expression.operator === "NotIn") return !(expression.values ?? []).includes(value ?? "");
    if (expression.operator === "Exists") return value !== undefined;
    return value === undefined;
  });
  return byLabel && byExpression;
}

const isEmpty = (selector: LabelSelector | undefined) =>
  Object.keys(selector?.matchLabels ?? {}).length === 0 && (selector?.matchExpressions ?? []).length === 0;

/**
 * A default deny (every pod, ingress and egress, no rule) and, for every pod, a policy of its own
 * that opens the flows it needs: nothing runs on the namespace's defaults. A policy of its own
 * selects by `matchLabels` (its name or component); the cross-cutting ones (metrics scrapes) select
 * by expression and do not count.
 */
export function networkPolicyProblems(objects: readonly K8sObject[], source: string): Problem[] {
  const policies = objects.filter((object) => object.kind === "NetworkPolicy");
  const problems: Problem[] = [];
  const denyAll = policies.some(
    (policy) =>
      isEmpty(policy.spec?.podSelector) &&
      ["Ingress", "Egress"].every((type) => (policy.spec?.policyTypes ?? []).includes(type)) &&
      (policy.spec?.ingress ?? []).length === 0 &&
      (policy.spec?.egress ?? []).length === 0,
  );
  if (!denyAll) {
    problems.push(
      problem(source, "needs a default-deny NetworkPolicy (every pod, Ingress and Egress, no rule)"),
    );
  }
  for (const object of objects.filter((candidate) => podSpecOf(candidate))) {
    const labels = podLabelsOf(object);
    const own = policies.some((policy) => {
      const selector: LabelSelector | undefined = policy.spec?.podSelector;
      return Object.keys(selector?.matchLabels ?? {}).length > 0 && selects(selector, labels);
    });
    if (!own) {
      problems.push(
        problem(
          `${source} ${object.kind}/${object.metadata.name}`,
          "no NetworkPolicy opens the flows it needs",
        ),
      );
    }
  }
  return problems;
}

/* ---------- compose ---------- */

type ComposeEnv = Record<string, unknown>;
const environmentOf = (file: ComposeFile, name: string): ComposeEnv =>
  ((file.services?.[name] as { environment?: ComposeEnv } | undefined)?.environment ?? {}) as ComposeEnv;

/**
 * In compose every NATS client names its identity and takes its password from the same variable
 * (and default) as the nats server; every REDIS_URL names its own ACL user with the variable the
 * redis container renders its ACL file from.
 */
export function composeCredentialProblems(
  file: ComposeFile,
  where: string,
  identities: Identities,
): Problem[] {
  const problems: Problem[] = [];
  const natsServer = environmentOf(file, "nats");
  const redisServer = environmentOf(file, "redis");
  for (const name of Object.keys(file.services ?? {})) {
    if (name === "nats" || name === "redis") continue;
    const env = environmentOf(file, name);
    const at = `${where} services.${name}`;
    if ("NATS_URL" in env) {
      const user = String(env.NATS_USER ?? "");
      const variable = identities.nats.get(user);
      if (!variable) {
        problems.push(problem(at, `NATS_USER must name a user of deploy/nats/auth.conf, got '${user}'`));
      } else if (!String(env.NATS_PASSWORD ?? "").startsWith(`\${${variable}:-`)) {
        problems.push(problem(at, `NATS_PASSWORD must be \${${variable}:-…}, as the nats server's`));
      } else if (natsServer[variable] !== env.NATS_PASSWORD) {
        problems.push(problem(at, `the nats server must get ${variable} with the same default`));
      }
    }
    if ("REDIS_URL" in env) {
      const url = String(env.REDIS_URL);
      const match = /^redis:\/\/([\w-]+):(\$\{(\w+):-[^}]*\})@/.exec(url);
      const user = match?.[1] ?? "";
      const expected = identities.redis.get(user);
      if (!match || user === "default" || !expected || expected.variable !== match[3]) {
        problems.push(problem(at, `REDIS_URL must carry its own ACL user and \${REDIS_PASSWORD_<USER>:-…}`));
      } else if (redisServer[expected.variable] !== match[2]) {
        problems.push(problem(at, `the redis server must get ${expected.variable} with the same default`));
      }
    }
  }
  for (const variable of identities.nats.values()) {
    if (!(variable in natsServer)) problems.push(problem(`${where} services.nats`, `needs ${variable}`));
  }
  problems.push(...composePortalSecretProblems(file, where));
  for (const { variable } of identities.redis.values()) {
    if (!(variable in redisServer)) problems.push(problem(`${where} services.redis`, `needs ${variable}`));
  }
  return problems;
}

/**
 * The portal's monitor and export pages call the gateway's internal listener with credentials
 * signed by PORTAL_GATEWAY_SECRET: the gateway and the portal take the same variable and default,
 * never GATEWAY_INTERNAL_SECRET's, and the portal's GATEWAY_URL is that listener.
 */
function composePortalSecretProblems(file: ComposeFile, where: string): Problem[] {
  const gateway = environmentOf(file, "gateway");
  const portal = environmentOf(file, "portal");
  if (!("PORTAL_PORT" in portal) || !("PORT" in gateway || "GATEWAY_INTERNAL_PORT" in gateway)) return [];
  const problems: Problem[] = [];
  const secret = String(gateway.PORTAL_GATEWAY_SECRET ?? "");
  if (!secret.startsWith("${PORTAL_GATEWAY_SECRET:-"))
    problems.push(
      problem(`${where} services.gateway`, `PORTAL_GATEWAY_SECRET must be \${PORTAL_GATEWAY_SECRET:-…}`),
    );
  if (portal.PORTAL_GATEWAY_SECRET !== gateway.PORTAL_GATEWAY_SECRET)
    problems.push(
      problem(
        `${where} services.portal`,
        "PORTAL_GATEWAY_SECRET must be the gateway's, with the same default",
      ),
    );
  if (secret !== "" && secret === String(gateway.GATEWAY_INTERNAL_SECRET ?? ""))
    problems.push(
      problem(`${where} services.gateway`, "PORTAL_GATEWAY_SECRET must not be GATEWAY_INTERNAL_SECRET"),
    );
  const internal = `http://gateway:${String(gateway.GATEWAY_INTERNAL_PORT ?? "8081")}`;
  if (portal.GATEWAY_URL !== internal)
    problems.push(
      problem(`${where} services.portal`, `GATEWAY_URL must be the gateway's internal listener, ${internal}`),
    );
  return problems;
}

/** A NATS node an override adds must know every user's password too, or it cannot read auth.conf. */
export function composeOverrideCredentialProblems(
  file: ComposeFile,
  where: string,
  identities: Identities,
): Problem[] {
  const problems: Problem[] = [];
  for (const name of Object.keys(file.services ?? {}).filter((service) => service.startsWith("nats"))) {
    const env = environmentOf(file, name);
    for (const variable of identities.nats.values()) {
      if (!(variable in env)) problems.push(problem(`${where} services.${name}`, `needs ${variable}`));
    }
  }
  return problems;
}
