/**
 * Every deployment check that needs no container engine: docker-compose.yml, the kustomizations under
 * deploy/kubernetes, the chart values, that all of them name the same services as services/, and
 * that each service connects to NATS and Redis as its own identity of deploy/nats and deploy/redis.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { validateCompose, validateComposeOverride } from "./compose.ts";
import {
  composeCredentialProblems,
  composeOverrideCredentialProblems,
  type Identities,
  kubernetesCredentialProblems,
  networkPolicyProblems,
  readIdentities,
} from "./credentials.ts";
import { dependencyProblems } from "./dependencies.ts";
import { readDockerfileProblems } from "./dockerfile.ts";
import { composeAppServices, inventoryProblems, serviceFolders } from "./inventory.ts";
import {
  deploymentNames,
  type K8sObject,
  renderKustomization,
  validateObjectRules,
  validateObjectSchemas,
} from "./kubernetes.ts";
import { observabilityFiles, observabilityProblems } from "./observability.ts";
import type { Problem } from "./problems.ts";
import { streamOwningServices, streamReplicaProblems } from "./stream-replicas.ts";

export { formatProblems, type Problem } from "./problems.ts";

export interface Layout {
  composeFile: string;
  /** Override files, as used with `docker compose -f docker-compose.yml -f FILE`. */
  composeOverridesDir: string;
  dockerfile: string;
  dockerignore: string;
  kubernetesDir: string;
  /** Alert rules, scrape configuration and Grafana dashboard. */
  observabilityDir: string;
  servicesDir: string;
  /** The NATS server's config and its users and permissions (auth.conf). */
  natsDir: string;
  /** The Redis ACL template (users.acl) and its renderer. */
  redisDir: string;
  /** The operator's guide, whose install commands feed the charts their files. */
  operatorGuide: string;
}

export const repositoryLayout = (root: string): Layout => ({
  composeFile: join(root, "docker-compose.yml"),
  composeOverridesDir: join(root, "deploy", "compose"),
  dockerfile: join(root, "deploy", "Dockerfile"),
  dockerignore: join(root, ".dockerignore"),
  kubernetesDir: join(root, "deploy", "kubernetes"),
  observabilityDir: join(root, "deploy", "observability"),
  servicesDir: join(root, "services"),
  natsDir: join(root, "deploy", "nats"),
  redisDir: join(root, "deploy", "redis"),
  operatorGuide: join(root, "deploy", "README.md"),
});

/** Manifests applied on their own, outside every kustomization (the operator CLI's pod). */
function toolObjects(kubernetesDir: string): { objects: K8sObject[]; files: string[] } {
  const dir = join(kubernetesDir, "tools");
  if (!existsSync(dir)) return { objects: [], files: [] };
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".yaml"))
    .map((name) => join(dir, name));
  const objects = files.flatMap((file) =>
    parseAllDocuments(readFileSync(file, "utf8"))
      .map((document) => document.toJS() as K8sObject | null)
      .filter((object): object is K8sObject => object !== null),
  );
  return { objects, files };
}

/** "base" and every "overlays/NAME" that holds a kustomization. */
function kustomizations(kubernetesDir: string): string[] {
  const overlaysDir = join(kubernetesDir, "overlays");
  const overlays = existsSync(overlaysDir) ? readdirSync(overlaysDir).map((name) => `overlays/${name}`) : [];
  return ["base", ...overlays].filter((name) => existsSync(join(kubernetesDir, name, "kustomization.yaml")));
}

export async function validateDeployment(
  layout: Layout,
): Promise<{ problems: Problem[]; checked: string[] }> {
  const services = serviceFolders(layout.servicesDir);
  const identities: Identities = readIdentities(
    join(layout.natsDir, "auth.conf"),
    join(layout.redisDir, "users.acl"),
  );
  const compose = validateCompose(readFileSync(layout.composeFile, "utf8"), services, layout.composeFile);
  const problems: Problem[] = [...compose.problems];
  if (compose.file) problems.push(...composeCredentialProblems(compose.file, layout.composeFile, identities));
  problems.push(...readDockerfileProblems(layout.dockerfile, layout.dockerignore));
  const checked = [layout.composeFile, layout.dockerfile];
  for (const name of readdirSync(layout.composeOverridesDir).filter((file) => file.endsWith(".yml"))) {
    const path = join(layout.composeOverridesDir, name);
    const text = readFileSync(path, "utf8");
    if (compose.file) problems.push(...validateComposeOverride(text, compose.file, path));
    problems.push(...composeOverrideCredentialProblems(parse(text, { merge: true }) ?? {}, path, identities));
    checked.push(path);
  }
  const deployments = new Map<string, string[]>();
  const tools = toolObjects(layout.kubernetesDir);
  for (const name of kustomizations(layout.kubernetesDir)) {
    const source = join(layout.kubernetesDir, name);
    const rendered = renderKustomization(source);
    problems.push(...rendered.problems);
    problems.push(...(await validateObjectSchemas(rendered.objects, source)));
    problems.push(...validateObjectRules(rendered.objects, source));
    problems.push(...kubernetesCredentialProblems(rendered.objects, source, identities));
    // The tools' pods run in the same namespace, under the same policies.
    problems.push(...networkPolicyProblems([...rendered.objects, ...tools.objects], source));
    if (name === "overlays/production")
      problems.push(
        ...streamReplicaProblems(rendered.objects, streamOwningServices(layout.servicesDir), source),
      );
    if (rendered.problems.length === 0) deployments.set(name, deploymentNames(rendered.objects));
    checked.push(`${source} (${rendered.objects.length} objects)`);
  }
  for (const file of tools.files) checked.push(file);
  problems.push(...(await validateObjectSchemas(tools.objects, join(layout.kubernetesDir, "tools"))));
  problems.push(
    ...kubernetesCredentialProblems(tools.objects, join(layout.kubernetesDir, "tools"), identities),
  );
  problems.push(
    ...dependencyProblems(join(layout.kubernetesDir, "dependencies"), identities, layout.operatorGuide),
  );
  problems.push(...observabilityProblems(observabilityFiles(layout.observabilityDir), services));
  checked.push(`${layout.observabilityDir} (alert rules, scrape configuration, dashboard)`);
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
