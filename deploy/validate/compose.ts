/**
 * docker-compose.yml against the Compose Specification's JSON schema (the copy that the maintained
 * `dclint` package ships, kept in step with compose-spec/compose-spec), then the rules this stack relies
 * on that a schema cannot express: every application service built from deploy/Dockerfile with its own
 * SERVICE, a health check, scalable (no container_name), durable Redis and NATS, existing dependencies.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Ajv, type ErrorObject } from "ajv";
import { parse } from "yaml";
import { type Problem, problem } from "./problems.ts";

export type ComposeFile = {
  services?: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
};
type ComposeService = Record<string, unknown> & {
  build?: { dockerfile?: string; args?: Record<string, unknown> } | string;
  command?: string[] | string;
  depends_on?: Record<string, unknown> | string[];
  healthcheck?: { test?: unknown; disable?: boolean };
  ports?: unknown[];
  profiles?: string[];
  volumes?: unknown[];
};

/**
 * Services that are not ours: the infrastructure the stack runs on (and a mail capture inbox), the
 * operator CLI, and the monitoring of the "observability" profile.
 */
export const COMPOSE_INFRASTRUCTURE = ["redis", "nats", "mail"] as const;
/** The public faces of the product: the only application services that publish a host port to all. */
const PUBLIC_SERVICES: readonly string[] = ["gateway", "portal"];
export const COMPOSE_TOOLS = ["admin", "prometheus", "grafana"] as const;

const require = createRequire(import.meta.url);
const COMPOSE_SCHEMA_PATH = join(
  dirname(require.resolve("dclint/package.json")),
  "schemas",
  "compose.schema.json",
);

let compiled: ReturnType<Ajv["compile"]> | undefined;
function schemaValidator() {
  if (compiled) return compiled;
  const schema = JSON.parse(readFileSync(COMPOSE_SCHEMA_PATH, "utf8"));
  // The schema names draft-07 by an https URL Ajv does not know by that spelling; it is plain draft-07.
  delete schema.$schema;
  compiled = new Ajv({ allErrors: true, strict: false }).compile(schema);
  return compiled;
}

/** Parses YAML the way Compose does (merge keys `<<:` resolved); a syntax error is a problem. */
function parseCompose(text: string, where: string): { file?: ComposeFile; problems: Problem[] } {
  try {
    return { file: parse(text, { merge: true }) as ComposeFile, problems: [] };
  } catch (error) {
    return { problems: [problem(where, `not valid YAML: ${(error as Error).message}`)] };
  }
}

function validateComposeSchema(file: unknown, where: string): Problem[] {
  const validate = schemaValidator();
  if (validate(file)) return [];
  return (validate.errors ?? []).map((error: ErrorObject) =>
    problem(
      `${where}${error.instancePath || "/"}`,
      `${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ""}`,
    ),
  );
}

/** Processes that run from another service's image: the portal's notices worker. */
const SECOND_PROCESSES: Readonly<Record<string, string>> = { notices: "portal" };

function validateComposeRules(file: ComposeFile, appServices: readonly string[], where: string) {
  const services = file.services ?? {};
  const problems: Problem[] = [];
  const at = (name: string) => `${where} services.${name}`;
  for (const name of appServices) {
    const service = services[name];
    if (!service) continue; // reported by the inventory check
    const build = typeof service.build === "object" ? service.build : undefined;
    const imageOf = SECOND_PROCESSES[name];
    if (imageOf !== undefined) {
      // Runs from its service's image (built by that service's entry), with a command of its own.
      if (!String(service.image ?? "").startsWith(`rda/${imageOf}:`) || service.command === undefined)
        problems.push(problem(at(name), `must run the image rda/${imageOf} with a command of its own`));
    } else if (build?.dockerfile !== "deploy/Dockerfile" || build.args?.SERVICE !== name) {
      problems.push(problem(at(name), `must build deploy/Dockerfile with args.SERVICE: ${name}`));
    }
    if (!service.healthcheck?.test || service.healthcheck.disable) {
      problems.push(problem(at(name), "needs a healthcheck (the start order waits on it)"));
    }
    if ("container_name" in service) {
      problems.push(problem(at(name), "container_name prevents `docker compose up --scale`"));
    }
    const hostPorts = (service.ports ?? []).filter((port) => !String(port).startsWith("127.0.0.1:"));
    if (!PUBLIC_SERVICES.includes(name) && hostPorts.length > 0) {
      problems.push(problem(at(name), "only the gateway and the portal publish a public host port"));
    }
  }
  problems.push(...checkDependencies(services, where), ...checkDurability(services, where));
  return problems;
}

function checkDependencies(
  services: Record<string, ComposeService>,
  where: string,
  known: Record<string, unknown> = services,
): Problem[] {
  const problems: Problem[] = [];
  for (const [name, service] of Object.entries(services)) {
    const dependencies = Array.isArray(service.depends_on)
      ? service.depends_on
      : Object.keys(service.depends_on ?? {});
    for (const dependency of dependencies) {
      if (!(dependency in known)) {
        problems.push(problem(`${where} services.${name}`, `depends_on names no service: ${dependency}`));
      }
    }
  }
  return problems;
}

const commandLine = (service: ComposeService | undefined) =>
  (Array.isArray(service?.command) ? service.command.join(" ") : (service?.command ?? "")).replace(/"/g, "");

function checkDurability(services: Record<string, ComposeService>, where: string): Problem[] {
  const problems: Problem[] = [];
  const redis = commandLine(services.redis);
  if (!/--appendonly yes/.test(redis) || !/--appendfsync everysec/.test(redis)) {
    problems.push(
      problem(`${where} services.redis`, "the ledger needs --appendonly yes --appendfsync everysec"),
    );
  }
  if (!/--maxmemory-policy noeviction/.test(redis)) {
    problems.push(problem(`${where} services.redis`, "the ledger needs --maxmemory-policy noeviction"));
  }
  if (!/(^|\s)(-js|--jetstream)(\s|$)/.test(commandLine(services.nats))) {
    problems.push(problem(`${where} services.nats`, "NATS must run with JetStream (-js)"));
  }
  for (const name of ["redis", "nats"]) {
    if (!(services[name]?.volumes ?? []).some((volume) => String(volume).endsWith(":/data"))) {
      problems.push(problem(`${where} services.${name}`, "its data must be on a volume mounted at /data"));
    }
  }
  return problems;
}

/** Everything about one compose file; `appServices` are the folders of services/. */
export function validateCompose(text: string, appServices: readonly string[], where = "docker-compose.yml") {
  const parsed = parseCompose(text, where);
  if (!parsed.file) return { file: undefined, problems: parsed.problems };
  const problems = validateComposeSchema(parsed.file, where);
  if (problems.length === 0) problems.push(...validateComposeRules(parsed.file, appServices, where));
  return { file: parsed.file, problems };
}

/**
 * An override file (docker compose -f docker-compose.yml -f OVERRIDE): valid against the schema on its
 * own, every dependency a service of the base or the override, and any NATS node it adds durable.
 */
export function validateComposeOverride(text: string, base: ComposeFile, where: string): Problem[] {
  const parsed = parseCompose(text, where);
  if (!parsed.file) return parsed.problems;
  const problems = validateComposeSchema(parsed.file, where);
  const services = parsed.file.services ?? {};
  problems.push(...checkDependencies(services, where, { ...base.services, ...services }));
  for (const [name, service] of Object.entries(services)) {
    if (!name.startsWith("nats")) continue;
    const command = commandLine(service);
    if (!/(^|\s)-js(\s|$)/.test(command)) problems.push(problem(`${where} services.${name}`, "needs -js"));
    const volumes = service.volumes ?? base.services?.[name]?.volumes ?? [];
    if (!volumes.some((volume) => String(volume).endsWith(":/data"))) {
      problems.push(problem(`${where} services.${name}`, "its JetStream store must be on a volume at /data"));
    }
  }
  return problems;
}
