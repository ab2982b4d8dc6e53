/**
 * Every deployment check that needs no container engine: docker-compose.yml, the kustomizations under
 * deploy/kubernetes, the chart values, and that all of them name the same services as services/.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { validateCompose, validateComposeOverride } from "./compose.ts";
import { dependencyProblems } from "./dependencies.ts";
import { readDockerfileProblems } from "./dockerfile.ts";
import { composeAppServices, inventoryProblems, serviceFolders } from "./inventory.ts";
import {
  deploymentNames,
  renderKustomization,
  validateObjectRules,
  validateObjectSchemas,
} from "./kubernetes.ts";
import type { Problem } from "./problems.ts";

export { formatProblems, type Problem } from "./problems.ts";

export interface Layout {
  composeFile: string;
  /** Override files, as used with `docker compose -f docker-compose.yml -f FILE`. */
  composeOverridesDir: string;
  dockerfile: string;
  dockerignore: string;
  kubernetesDir: string;
  servicesDir: string;
}

export const repositoryLayout = (root: string): Layout => ({
  composeFile: join(root, "docker-compose.yml"),
  composeOverridesDir: join(root, "deploy", "compose"),
  dockerfile: join(root, "deploy", "Dockerfile"),
  dockerignore: join(root, ".dockerignore"),
  kubernetesDir: join(root, "deploy", "kubernetes"),
  servicesDir: join(root, "services"),
});

/** "base" and every "overlays/NAME" that holds a kustomization. */
export function kustomizations(kubernetesDir: string): string[] {
  const overlaysDir = join(kubernetesDir, "overlays");
  const overlays = existsSync(overlaysDir) ? readdirSync(overlaysDir).map((name) => `overlays/${name}`) : [];
  return ["base", ...overlays].filter((name) => existsSync(join(kubernetesDir, name, "kustomization.yaml")));
}

export async function validateDeployment(
  layout: Layout,
): Promise<{ problems: Problem[]; checked: string[] }> {
  const services = serviceFolders(layout.servicesDir);
  const compose = validateCompose(readFileSync(layout.composeFile, "utf8"), services, layout.composeFile);
  const problems: Problem[] = [...compose.problems];
  problems.push(...readDockerfileProblems(layout.dockerfile, layout.dockerignore));
  const checked = [layout.composeFile, layout.dockerfile];
  for (const name of readdirSync(layout.composeOverridesDir).filter((file) => file.endsWith(".yml"))) {
    const path = join(layout.composeOverridesDir, name);
    if (compose.file)
      problems.push(...validateComposeOverride(readFileSync(path, "utf8"), compose.file, path));
    checked.push(path);
  }
  const deployments = new Map<string, string[]>();
  for (const name of kustomizations(layout.kubernetesDir)) {
    const source = join(layout.kubernetesDir, name);
    const rendered = renderKustomization(source);
    problems.push(...rendered.problems);
    problems.push(...(await validateObjectSchemas(rendered.objects, source)));
    problems.push(...validateObjectRules(rendered.objects, source));
    if (rendered.problems.length === 0) deployments.set(name, deploymentNames(rendered.objects));
    checked.push(`${source} (${rendered.objects.length} objects)`);
  }
  problems.push(...dependencyProblems(join(layout.kubernetesDir, "dependencies")));
  if (compose.file) {
    problems.push(
      ...inventoryProblems({
        services,
        compose: composeAppServices(compose.file),
        kustomizations: deployments,
      }),
    );
  }
  return { problems, checked };
}

/**
 * Debian's docker-compose (v1), where installed, as a second opinion: the base file alone and with each
 * override. Absent is not a failure: the schema check above is the one CI relies on.
 */
export function dockerComposeConfig(layout: Layout): Problem[] | "not installed" {
  const overrides = readdirSync(layout.composeOverridesDir)
    .filter((file) => file.endsWith(".yml"))
    .map((file) => join(layout.composeOverridesDir, file));
  const problems: Problem[] = [];
  for (const files of [[layout.composeFile], ...overrides.map((file) => [layout.composeFile, file])]) {
    try {
      const args = [...files.flatMap((file) => ["-f", file]), "config", "-q"];
      execFileSync("docker-compose", args, { stdio: ["ignore", "ignore", "pipe"] });
    } catch (error) {
      const failure = error as NodeJS.ErrnoException & { stderr?: Buffer };
      if (failure.code === "ENOENT") return "not installed";
      const message = `docker-compose config: ${failure.stderr?.toString().trim()}`;
      problems.push({ where: files.join(" + "), message });
    }
  }
  return problems;
}
