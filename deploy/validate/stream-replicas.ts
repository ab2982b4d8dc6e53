/**
 * JetStream copies in production: every service that sets up a stream or bucket (its config reads
 * NATS_REPLICAS, `env.natsReplicas()`) must run with NATS_REPLICAS=3 in the production overlay, so its
 * streams survive the loss of one node of the three-node NATS cluster (docs/operations.md#jetstream).
 * A service left at the default (1) would keep its refunds, notices or jobs on one node only.
 * A Deployment is the service its image is, whatever it is named: the `notices` Deployment runs the
 * portal's image (its notices worker, which sets up the notice stream), so it is checked as the
 * portal is.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { K8sObject } from "./kubernetes.ts";
import { type Problem, problem } from "./problems.ts";

/** The production overlay's copies: one per node of the NATS cluster (dependencies/nats-values.yaml). */
export const PRODUCTION_NATS_REPLICAS = "3";

/** The services whose configuration reads NATS_REPLICAS: the ones that set up streams or buckets. */
export function streamOwningServices(servicesDir: string): string[] {
  return readdirSync(servicesDir).filter((name) =>
    ["config.ts", "settings.ts"].some((file) => {
      const path = join(servicesDir, name, "src", file);
      return existsSync(path) && readFileSync(path, "utf8").includes("env.natsReplicas()");
    }),
  );
}

type EnvVar = {
  name: string;
  value?: string;
  valueFrom?: { configMapKeyRef?: { name: string; key: string } };
};
type EnvSource = { configMapRef?: { name: string } };

/** The service a Deployment runs: its container's image, `rda/<service>` (a registry may prefix it). */
function serviceOf(deployment: K8sObject): string | undefined {
  const image = deployment.spec?.template?.spec?.containers?.[0]?.image as string | undefined;
  return image?.match(/(?:^|\/)rda\/([a-z0-9-]+)(?::|@|$)/)?.[1];
}

/** NATS_REPLICAS as the container sees it: its own env wins over envFrom (as Kubernetes does). */
function natsReplicasOf(deployment: K8sObject, configMaps: Map<string, Record<string, string>>) {
  const container = deployment.spec?.template?.spec?.containers?.[0];
  const own = (container?.env as EnvVar[] | undefined)?.find((variable) => variable.name === "NATS_REPLICAS");
  if (own?.value !== undefined) return own.value;
  const ref = own?.valueFrom?.configMapKeyRef;
  if (ref) return configMaps.get(ref.name)?.[ref.key];
  let found: string | undefined;
  for (const source of (container?.envFrom as EnvSource[] | undefined) ?? []) {
    const name = source.configMapRef?.name;
    const value = name === undefined ? undefined : configMaps.get(name)?.NATS_REPLICAS;
    if (value !== undefined) found = value;
  }
  return found;
}

export function streamReplicaProblems(
  objects: readonly K8sObject[],
  owners: readonly string[],
  source: string,
): Problem[] {
  const configMaps = new Map(
    objects.filter((object) => object.kind === "ConfigMap").map((map) => [map.metadata.name, map.data ?? {}]),
  );
  const problems: Problem[] = [];
  for (const deployment of objects.filter((object) => object.kind === "Deployment")) {
    const service = serviceOf(deployment);
    if (service === undefined || !owners.includes(service)) continue;
    const replicas = natsReplicasOf(deployment, configMaps);
    if (replicas !== PRODUCTION_NATS_REPLICAS)
      problems.push(
        problem(
          `${source} Deployment/${deployment.metadata.name}`,
          `sets up JetStream streams, so needs NATS_REPLICAS=${PRODUCTION_NATS_REPLICAS} (has ${replicas ?? "none: 1"})`,
        ),
      );
  }
  return problems;
}
