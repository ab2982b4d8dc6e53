/**
 * The Kubernetes manifests: render each kustomization with `kubectl kustomize` (offline), then check
 * every object three ways:
 *  1. against the Kubernetes OpenAPI schemas compiled into `kubernetes-models` (types, required fields,
 *     formats);
 *  2. for unknown fields (a typo such as `readinesProbe` that the API server would reject), walking the
 *     field lists of the generated models of the official client, `@kubernetes/client-node`;
 *  3. against the rules this product relies on (probes, resources, non-root, a PDB per Deployment, an
 *     HPA for the scalable services, Services and config references that resolve).
 */
import { execFileSync } from "node:child_process";
import * as clientModels from "@kubernetes/client-node/dist/gen/models/ObjectSerializer.js";
import { parseAllDocuments } from "yaml";
import { type Problem, problem } from "./problems.ts";

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: rendered manifests are walked generically
  spec?: any;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
};

/** Renders a kustomization; a kustomize error (bad YAML, a missing file, a bad patch) is a problem. */
export function renderKustomization(dir: string): { objects: K8sObject[]; problems: Problem[] } {
  let output: string;
  try {
    output = execFileSync("kubectl", ["kustomize", dir], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    const reason = failure.code === "ENOENT" ? "kubectl is not installed" : failure.stderr?.trim();
    return {
      objects: [],
      problems: [problem(dir, `kubectl kustomize failed: ${reason ?? failure.message}`)],
    };
  }
  const objects = parseAllDocuments(output)
    .map((document) => document.toJS() as K8sObject | null)
    .filter((object): object is K8sObject => object !== null);
  return { objects, problems: [] };
}

const objectName = (object: K8sObject) => `${object.kind}/${object.metadata?.name}`;

type ModelClass = new (data: unknown) => { validate(): void };

/** 1. The OpenAPI schema of the object's kind (kubernetes-models: "kubernetes-models/apps/v1/Deployment"). */
async function schemaProblems(object: K8sObject, where: string): Promise<Problem[]> {
  let Model: ModelClass | undefined;
  try {
    const module = await import(`kubernetes-models/${object.apiVersion}/${object.kind}`);
    Model = module[object.kind] as ModelClass;
  } catch {
    return [problem(where, `unknown apiVersion/kind ${object.apiVersion} ${object.kind}`)];
  }
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    const details = (error as { errors?: { instancePath: string; message: string }[] }).errors;
    if (!details) return [problem(where, (error as Error).message)];
    return details.map((detail) => problem(`${where}${detail.instancePath}`, detail.message));
  }
}

type Attribute = { baseName: string; type: string };
const models = clientModels as unknown as Record<string, { attributeTypeMap?: Attribute[] } | undefined>;

/** "apps/v1" + "Deployment" → "V1Deployment"; "autoscaling/v2" → "V2HorizontalPodAutoscaler". */
function clientModelName(object: K8sObject): string {
  const version = object.apiVersion.split("/").at(-1) ?? "";
  return `${version.charAt(0).toUpperCase()}${version.slice(1)}${object.kind}`;
}

/** 2. Fields the API does not define, anywhere in the object (types are left to step 1). */
function unknownFieldProblems(value: unknown, type: string, path: string, problems: Problem[]): void {
  if (value === null || value === undefined) return;
  if (type.startsWith("Array<")) {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) {
        unknownFieldProblems(item, type.slice(6, -1), `${path}/${index}`, problems);
      }
    }
    return;
  }
  if (type.startsWith("{ [key: string]: ")) {
    if (typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        unknownFieldProblems(item, type.slice(17, -3), `${path}/${key}`, problems);
      }
    }
    return;
  }
  const attributes = models[type]?.attributeTypeMap;
  if (!attributes || typeof value !== "object" || Array.isArray(value)) return;
  for (const [key, item] of Object.entries(value)) {
    const attribute = attributes.find((candidate) => candidate.baseName === key);
    if (!attribute) problems.push(problem(path || "/", `unknown field "${key}" (not in ${type})`));
    else unknownFieldProblems(item, attribute.type, `${path}/${key}`, problems);
  }
}

export async function validateObjectSchemas(
  objects: readonly K8sObject[],
  source: string,
): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const object of objects) {
    const where = `${source} ${objectName(object)}`;
    problems.push(...(await schemaProblems(object, where)));
    const modelName = clientModelName(object);
    if (!models[modelName]) {
      problems.push(problem(where, `no model ${modelName} to check its fields against`));
      continue;
    }
    const found: Problem[] = [];
    unknownFieldProblems(object, modelName, "", found);
    problems.push(...found.map((unknown) => problem(`${where}${unknown.where}`, unknown.message)));
  }
  return problems;
}

/** Deployments whose replica count an HPA must own (billing scales by hand; the simulator not at all). */
const AUTOSCALED = [
  "gateway",
  "mcp",
  "portal",
  "adapter-posts",
  "adapter-tree",
  "adapter-communities",
  "adapter-users",
] as const;

/** Secrets the operator creates outside the manifests (deploy/README.md, "Secrets"). */
const EXTERNAL_SECRETS = [
  "rda-nats-users",
  "rda-redis-users",
  "rda-redis-auth",
  "rda-smtp",
  "rda-nats-ca",
  "rda-stripe",
  "rda-oauth",
  "rda-exports",
  "rda-webhooks",
] as const;

/** Single-replica development helpers of the dev overlay: no PodDisruptionBudget needed. */
export const DEV_ONLY_DEPLOYMENTS = ["upstream-sim", "payments-sim", "mail"] as const;

/** Deployments of third-party images (the dev overlay's mail inbox): they serve no metrics of ours. */
const NOT_OURS = ["mail"] as const;

// biome-ignore lint/suspicious/noExplicitAny: a rendered container
type Container = any;

function containerProblems(container: Container, where: string): Problem[] {
  const problems: Problem[] = [];
  const at = `${where} container ${container.name}`;
  if (!container.readinessProbe) problems.push(problem(at, "needs a readinessProbe"));
  if (!container.livenessProbe) problems.push(problem(at, "needs a livenessProbe"));
  if (!container.resources?.requests?.cpu || !container.resources?.requests?.memory) {
    problems.push(problem(at, "needs cpu and memory requests"));
  }
  if (!container.resources?.limits?.memory) problems.push(problem(at, "needs a memory limit"));
  const security = container.securityContext ?? {};
  if (security.allowPrivilegeEscalation !== false || security.readOnlyRootFilesystem !== true) {
    problems.push(problem(at, "needs allowPrivilegeEscalation: false and readOnlyRootFilesystem: true"));
  }
  if (
    typeof container.image !== "string" ||
    container.image.endsWith(":latest") ||
    !container.image.includes(":")
  ) {
    problems.push(problem(at, "needs an image pinned by tag (not :latest)"));
  }
  return problems;
}

function matches(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

function referenceProblems(deployment: K8sObject, rendered: Set<string>, where: string): Problem[] {
  const problems: Problem[] = [];
  const names = new Set([...rendered, ...EXTERNAL_SECRETS.map((name) => `Secret/${name}`)]);
  for (const container of deployment.spec?.template?.spec?.containers ?? []) {
    for (const source of container.envFrom ?? []) {
      const ref = source.configMapRef ?? source.secretRef;
      const kind = source.configMapRef ? "ConfigMap" : "Secret";
      if (ref && !names.has(`${kind}/${ref.name}`))
        problems.push(problem(where, `envFrom names no ${kind} ${ref.name}`));
    }
    for (const variable of container.env ?? []) {
      const configMap = variable.valueFrom?.configMapKeyRef;
      const secret = variable.valueFrom?.secretKeyRef;
      if (configMap && !names.has(`ConfigMap/${configMap.name}`)) {
        problems.push(problem(where, `${variable.name} names no ConfigMap ${configMap.name}`));
      }
      if (secret && !names.has(`Secret/${secret.name}`)) {
        problems.push(problem(where, `${variable.name} names no Secret ${secret.name}`));
      }
    }
  }
  return problems;
}

/**
 * Metrics are scraped from every pod on its `metrics` port (prometheus.io annotations naming that
 * port), and no Service routes that port: it is never reachable from outside.
 */
function metricsProblems(deployment: K8sObject, services: readonly K8sObject[], where: string): Problem[] {
  const problems: Problem[] = [];
  const pod = deployment.spec?.template;
  const annotations: Record<string, string> = pod?.metadata?.annotations ?? {};
  const ports = (pod?.spec?.containers ?? []).flatMap((container: Container) => container.ports ?? []) as {
    name?: string;
    containerPort: number;
  }[];
  const metrics = ports.find((port) => port.name === "metrics");
  if (!metrics) problems.push(problem(where, "needs a container port named metrics"));
  if (
    annotations["prometheus.io/scrape"] !== "true" ||
    annotations["prometheus.io/port"] !== String(metrics?.containerPort)
  ) {
    problems.push(
      problem(where, 'pods need prometheus.io/scrape: "true" and prometheus.io/port naming the metrics port'),
    );
  }
  for (const service of services) {
    if (!matches(service.spec?.selector, pod?.metadata?.labels)) continue;
    const routed = (service.spec?.ports ?? []).some(
      (port: { targetPort?: string | number }) =>
        port.targetPort === "metrics" || port.targetPort === metrics?.containerPort,
    );
    if (routed)
      problems.push(problem(`${where} Service/${service.metadata.name}`, "must not route the metrics port"));
  }
  return problems;
}

/** 3. The product's rules over one rendered kustomization. */
export function validateObjectRules(objects: readonly K8sObject[], source: string): Problem[] {
  const problems: Problem[] = [];
  const names = new Set(objects.map(objectName));
  const of = (kind: string) => objects.filter((object) => object.kind === kind);
  for (const deployment of of("Deployment")) {
    const where = `${source} ${objectName(deployment)}`;
    const pod = deployment.spec?.template;
    if (pod?.spec?.securityContext?.runAsNonRoot !== true)
      problems.push(problem(where, "pods must set runAsNonRoot: true"));
    for (const container of pod?.spec?.containers ?? [])
      problems.push(...containerProblems(container, where));
    problems.push(...referenceProblems(deployment, names, where));
    const podLabels = pod?.metadata?.labels;
    if (!of("PodDisruptionBudget").some((pdb) => matches(pdb.spec?.selector?.matchLabels, podLabels))) {
      if (!(DEV_ONLY_DEPLOYMENTS as readonly string[]).includes(deployment.metadata.name))
        problems.push(problem(where, "needs a PodDisruptionBudget"));
    }
    // The mail capture inbox is a third-party image with no metrics of ours.
    if (!(NOT_OURS as readonly string[]).includes(deployment.metadata.name))
      problems.push(...metricsProblems(deployment, of("Service"), where));
    const autoscaled = (AUTOSCALED as readonly string[]).includes(deployment.metadata.name);
    const hpa = of("HorizontalPodAutoscaler").find(
      (candidate) => candidate.spec?.scaleTargetRef?.name === deployment.metadata.name,
    );
    if (autoscaled && !hpa) problems.push(problem(where, "needs a HorizontalPodAutoscaler"));
    if (autoscaled && deployment.spec?.replicas !== undefined) {
      problems.push(problem(where, "spec.replicas would fight the HorizontalPodAutoscaler on every apply"));
    }
  }
  for (const hpa of of("HorizontalPodAutoscaler")) {
    const target = hpa.spec?.scaleTargetRef;
    if (!names.has(`${target?.kind}/${target?.name}`)) {
      problems.push(
        problem(
          `${source} ${objectName(hpa)}`,
          `scales ${target?.kind}/${target?.name}, which does not exist`,
        ),
      );
    }
  }
  for (const service of of("Service")) {
    const selects = of("Deployment").some((deployment) =>
      matches(service.spec?.selector, deployment.spec?.template?.metadata?.labels),
    );
    if (!selects)
      problems.push(problem(`${source} ${objectName(service)}`, "its selector matches no Deployment's pods"));
  }
  return problems;
}

/** The Deployment names of one rendered kustomization. */
export const deploymentNames = (objects: readonly K8sObject[]) =>
  objects.filter((object) => object.kind === "Deployment").map((object) => object.metadata.name);
