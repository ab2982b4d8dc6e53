/**
 * The three lists of services must agree: the folders of services/, the application services of
 * docker-compose.yml, and the Deployments of deploy/kubernetes (base: all but the simulator; the dev
 * overlay: all, simulator included; no other overlay runs the simulator).
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { COMPOSE_INFRASTRUCTURE, COMPOSE_TOOLS, type ComposeFile } from "./compose.ts";
import { type Problem, problem } from "./problems.ts";

export const SIMULATOR = "upstream-sim";

export function serviceFolders(servicesDir: string): string[] {
  return readdirSync(servicesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(servicesDir, entry.name, "package.json")))
    .map((entry) => entry.name)
    .sort();
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
  const withoutSimulator = input.services.filter((name) => name !== SIMULATOR);
  for (const [name, deployments] of input.kustomizations) {
    const where = `deploy/kubernetes/${name}`;
    if (name === "overlays/dev")
      problems.push(...compare(where, input.services, deployments, "the dev overlay"));
    else problems.push(...compare(where, withoutSimulator, deployments, "the kustomization"));
  }
  if (!input.kustomizations.has("base")) problems.push(problem("deploy/kubernetes", "base/ is missing"));
  if (!input.kustomizations.has("overlays/dev"))
    problems.push(problem("deploy/kubernetes", "overlays/dev is missing"));
  return problems;
}
