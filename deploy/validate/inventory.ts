/**
 * The three lists of services must agree: the folders of services/, the application services of
 * docker-compose.yml, and the Deployments of deploy/kubernetes (base: all but the simulators; the dev
 * overlay: all, simulators included, plus its mail capture inbox; no other overlay runs either).
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { COMPOSE_INFRASTRUCTURE, COMPOSE_TOOLS, type ComposeFile } from "./compose.ts";
import { type Problem, problem } from "./problems.ts";

/** Stand-ins for the outside world (the upstream API, Stripe): development and tests only. */
const SIMULATORS: readonly string[] = ["upstream-sim", "payments-sim"];
/** Not a service of ours: the dev overlay's capture inbox for the portal's mail. */
const DEV_MAIL_INBOX = "mail";

/**
 * Every deployed process: each folder of services/, and the second process a service runs from its
 * own image (the portal's notices worker, `src/notices-main.ts`), deployed under its own name.
 */
export function serviceFolders(servicesDir: string): string[] {
  const folders = readdirSync(servicesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(servicesDir, entry.name, "package.json")))
    .map((entry) => entry.name);
  const workers = folders.some((name) => existsSync(join(servicesDir, name, "src", "notices-main.ts")))
    ? ["notices"]
    : [];
  return [...folders, ...workers].sort();
}

export function composeAppServices(file: ComposeFile): string[] {
  const notOurs: readonly string[] = [...COMPOSE_INFRASTRUCTURE, ...COMPOSE_TOOLS];
  return Object.keys(file.services ?? {})
    .filter((name) => !notOurs.includes(name))
    .sort();
}

function compare(
  where: string,
  expected: readonly string[],
  actual: readonly string[],
  what: string,
): Problem[] {
  const problems: Problem[] = [];
  for (const name of expected) {
    if (!actual.includes(name)) problems.push(problem(where, `${what} lacks ${name}`));
  }
  for (const name of actual) {
    if (!expected.includes(name))
      problems.push(problem(where, `${what} has ${name}, which is not in services/`));
  }
  return problems;
}

export function inventoryProblems(input: {
  services: readonly string[];
  compose: readonly string[];
  /** Deployment names per kustomization, keyed "base", "overlays/dev", ... */
  kustomizations: ReadonlyMap<string, readonly string[]>;
}): Problem[] {
  const problems = compare("docker-compose.yml", input.services, input.compose, "compose");
  const withoutSimulator = input.services.filter((name) => !SIMULATORS.includes(name));
  for (const [name, deployments] of input.kustomizations) {
    const where = `deploy/kubernetes/${name}`;
    if (name === "overlays/dev")
      problems.push(...compare(where, [...input.services, DEV_MAIL_INBOX], deployments, "the dev overlay"));
    else problems.push(...compare(where, withoutSimulator, deployments, "the kustomization"));
  }
  if (!input.kustomizations.has("base")) problems.push(problem("deploy/kubernetes", "base/ is missing"));
  if (!input.kustomizations.has("overlays/dev"))
    problems.push(problem("deploy/kubernetes", "overlays/dev is missing"));
  return problems;
}
