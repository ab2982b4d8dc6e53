/**
 * The deployment checks pass on the repository's own files and fail on deliberately broken copies, so
 * that CI catches a broken compose file or manifest before an operator does.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { validateCompose } from "../validate/compose.ts";
import { dockerfileProblems } from "../validate/dockerfile.ts";
import { dockerComposeConfig, type Layout, repositoryLayout, validateDeployment } from "../validate/index.ts";
import { serviceFolders } from "../validate/inventory.ts";
import { renderKustomization, validateObjectRules, validateObjectSchemas } from "../validate/kubernetes.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const layout = repositoryLayout(root);
const services = serviceFolders(layout.servicesDir);
const composeText = readFileSync(layout.composeFile, "utf8");
const scratch = mkdtempSync(join(tmpdir(), "rda-deploy-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the compose file and deploy/kubernetes in a fresh folder, with one edit applied. */
function brokenCopy(edit: (files: { compose: string; k8s: string }) => void): Layout {
  const dir = mkdtempSync(join(scratch, "copy-"));
  const copy: Layout = {
    ...layout,
    composeFile: join(dir, "docker-compose.yml"),
    kubernetesDir: join(dir, "kubernetes"),
  };
  writeFileSync(copy.composeFile, composeText);
  cpSync(layout.kubernetesDir, copy.kubernetesDir, { recursive: true });
  edit({ compose: copy.composeFile, k8s: copy.kubernetesDir });
  return copy;
}

function replaceIn(path: string, from: string | RegExp, to: string) {
  const text = readFileSync(path, "utf8");
  const changed = text.replace(from, to);
  if (changed === text) throw new Error(`test setup: ${String(from)} not found in ${path}`);
  writeFileSync(path, changed);
}

/** Runs deploy/healthcheck.mjs as the image does, against a server answering `status` on its paths. */
async function healthcheck(service: string, status: number): Promise<number | null> {
  const server = createServer((request, response) => {
    const known = request.url === "/readyz" || request.url === "/__sim/stats";
    response.writeHead(known ? status : 404).end();
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const port = String((server.address() as AddressInfo).port);
  const env = {
    ...process.env,
    SERVICE: service,
    PORT: port,
    MCP_PORT: port,
    SIM_PORT: port,
    HEALTH_PORT: port,
  };
  const child = spawn(process.execPath, [join(root, "deploy", "healthcheck.mjs")], { env, stdio: "ignore" });
  const [code] = (await once(child, "exit")) as [number | null];
  server.close();
  return code;
}

const messages = (problems: readonly { where: string; message: string }[]) =>
  problems.map((found) => `${found.where}: ${found.message}`).join("\n");

describe("the repository's deployment files", () => {
  it("pass every check: compose schema and rules, Dockerfile, kustomizations, chart values, inventory", async () => {
    const { problems, checked } = await validateDeployment(layout);
    expect(messages(problems)).toBe("");
    expect(checked.some((item) => item.includes("overlays/production"))).toBe(true);
    expect(checked.some((item) => item.includes("overlays/dev"))).toBe(true);
  });

  it("give every service of services/ an image health check that passes only on a ready answer", async () => {
    for (const service of services) {
      expect(await healthcheck(service, 200), service).toBe(0);
      expect(await healthcheck(service, 503), service).toBe(1);
    }
    expect(await healthcheck("no-such-service", 200)).toBe(2);
  });
});

describe("docker-compose.yml checks", () => {
  const broken = (from: string | RegExp, to: string) =>
    messages(validateCompose(composeText.replace(from, to), services).problems);

  it("reject a field the Compose specification does not define", () => {
    expect(broken("  redis:\n    image:", "  redis:\n    restrat: always\n    image:")).toMatch(/restrat/);
  });

  it("reject a value the specification does not allow", () => {
    expect(
      broken(
        "      redis:\n        condition: service_healthy",
        "      redis:\n        condition: service_happy",
      ),
    ).toMatch(/allowedValues/);
  });

  it("reject a file that is not YAML", () => {
    expect(broken("services:\n", "services:\n  - [unclosed\n")).toMatch(/YAML/);
  });

  it("reject a fixed container name, which prevents --scale", () => {
    const text = broken("  adapter-posts:\n", "  adapter-posts:\n    container_name: posts\n");
    expect(text).toMatch(/container_name/);
  });

  it("reject Redis without AOF persistence", () => {
    expect(broken('      - --appendonly\n      - "yes"\n', "")).toMatch(/appendonly/);
  });

  it("reject a dependency on a service that does not exist", () => {
    expect(
      broken(
        "      billing:\n        condition: service_healthy\n",
        "      biling:\n        condition: service_healthy\n",
      ),
    ).toMatch(/depends_on names no service: biling/);
  });
});

describe("Debian's docker-compose v1, where installed", () => {
  const installed = dockerComposeConfig(layout) !== "not installed";

  it.skipIf(!installed)("accepts the repository's files and rejects an unknown field", () => {
    expect(dockerComposeConfig(layout)).toEqual([]);
    const copy = brokenCopy(({ compose }) =>
      replaceIn(compose, "  redis:\n    image:", "  redis:\n    restrat: always\n    image:"),
    );
    const overrides = join(dirname(copy.composeFile), "compose");
    cpSync(layout.composeOverridesDir, overrides, { recursive: true });
    expect(messages(dockerComposeConfig({ ...copy, composeOverridesDir: overrides }) as [])).toMatch(
      /restrat/,
    );
  });
});

describe("compose override checks", () => {
  it("reject a NATS node without JetStream and a dependency on nothing", async () => {
    const copy = brokenCopy(() => {});
    const overrides = join(dirname(copy.composeFile), "compose");
    cpSync(layout.composeOverridesDir, overrides, { recursive: true });
    replaceIn(join(overrides, "scale.yml"), /( {2}nats-3:\n.*\n {4}command:\n) {6}- -js\n/, "$1");
    replaceIn(
      join(overrides, "scale.yml"),
      "      gateway:\n        condition: service_healthy",
      "      gateways:\n        condition: service_healthy",
    );
    const text = messages((await validateDeployment({ ...copy, composeOverridesDir: overrides })).problems);
    expect(text).toMatch(/services.nats-3: needs -js/);
    expect(text).toMatch(/services.lb: depends_on names no service: gateways/);
  });
});

describe("Kubernetes checks", () => {
  it("reject an unknown field in a container (a typo the API server would refuse)", async () => {
    const copy = brokenCopy(({ k8s }) =>
      replaceIn(join(k8s, "base", "gateway.yaml"), "readinessProbe:", "readinesProbe:"),
    );
    const { objects } = renderKustomization(join(copy.kubernetesDir, "base"));
    const text = messages(await validateObjectSchemas(objects, "base"));
    expect(text).toMatch(
      /Deployment\/gateway\/spec\/template\/spec\/containers\/0: unknown field "readinesProbe"/,
    );
  });

  it("reject a value of the wrong type and a missing required field", async () => {
    const copy = brokenCopy(({ k8s }) => {
      replaceIn(join(k8s, "base", "billing.yaml"), "replicas: 2", 'replicas: "two"');
      replaceIn(
        join(k8s, "base", "adapter-tree.yaml"),
        / {2}selector:\n {4}matchLabels:\n {6}app.kubernetes.io\/name: adapter-tree\n {2}template:/,
        "  template:",
      );
    });
    const { objects } = renderKustomization(join(copy.kubernetesDir, "base"));
    const text = messages(await validateObjectSchemas(objects, "base"));
    expect(text).toMatch(/Deployment\/billing\/spec\/replicas.*integer/);
    expect(text).toMatch(/Deployment\/adapter-tree.*selector/);
  });

  it("reject a Deployment without probes, limits or a PDB, and an HPA aimed at nothing", async () => {
    const copy = brokenCopy(({ k8s }) => {
      const mcp = join(k8s, "base", "mcp.yaml");
      replaceIn(mcp, / {10}readinessProbe:\n( {12}.*\n)+? {10}lifecycle:/, "          lifecycle:");
      replaceIn(mcp, "      memory: 384Mi", "      cpu: 500m");
      replaceIn(mcp, /---\napiVersion: policy\/v1\n(.*\n)+?(?=---)/, "");
      replaceIn(mcp, "    name: mcp\n  minReplicas", "    name: mcp-typo\n  minReplicas");
    });
    const { objects } = renderKustomization(join(copy.kubernetesDir, "base"));
    const text = messages(validateObjectRules(objects, "base"));
    expect(text).toMatch(/Deployment\/mcp container mcp: needs a readinessProbe/);
    expect(text).toMatch(/Deployment\/mcp container mcp: needs a memory limit/);
    expect(text).toMatch(/Deployment\/mcp: needs a PodDisruptionBudget/);
    expect(text).toMatch(/Deployment\/mcp: needs a HorizontalPodAutoscaler/);
    expect(text).toMatch(/HorizontalPodAutoscaler\/mcp: scales Deployment\/mcp-typo, which does not exist/);
  });

  it("reject a kustomization that cannot be rendered", async () => {
    const copy = brokenCopy(({ k8s }) =>
      replaceIn(join(k8s, "base", "kustomization.yaml"), "  - mcp.yaml\n", "  - mpc.yaml\n"),
    );
    const { problems } = await validateDeployment(copy);
    expect(messages(problems)).toMatch(/base: kubectl kustomize failed/);
  });

  it("reject a service missing from the manifests, or the simulator outside the dev overlay", async () => {
    const copy = brokenCopy(({ k8s }) => {
      replaceIn(join(k8s, "base", "kustomization.yaml"), "  - adapter-users.yaml\n", "");
      const production = join(k8s, "overlays", "production");
      cpSync(join(k8s, "overlays", "dev", "upstream-sim.yaml"), join(production, "upstream-sim.yaml"));
      replaceIn(
        join(production, "kustomization.yaml"),
        "  - ../../base\n",
        "  - ../../base\n  - upstream-sim.yaml\n",
      );
    });
    const text = messages((await validateDeployment(copy)).problems);
    expect(text).toMatch(/kubernetes\/base: the kustomization lacks adapter-users/);
    expect(text).toMatch(/overlays\/production: the kustomization has upstream-sim/);
  });

  it("reject a compose file that lacks a service of services/", async () => {
    const copy = brokenCopy(({ compose }) =>
      replaceIn(compose, / {2}adapter-users:\n( {4}.*\n| {6}.*\n)+?\n/, ""),
    );
    expect(messages((await validateDeployment(copy)).problems)).toMatch(
      /docker-compose.yml: compose lacks adapter-users/,
    );
  });
});

describe("Dockerfile checks", () => {
  const dockerfile = readFileSync(layout.dockerfile, "utf8");
  const dockerignore = readFileSync(layout.dockerignore, "utf8");

  it("reject a root user, an unpinned base image and dev dependencies", () => {
    const broken = dockerfile
      .replace("USER node", "USER root")
      .replace("ARG NODE_IMAGE=node:22.23.3-bookworm-slim", "ARG NODE_IMAGE=node:latest")
      .replace("--frozen-lockfile --prod", "--frozen-lockfile");
    const text = messages(dockerfileProblems(broken, dockerignore));
    expect(text).toMatch(/non-root USER/);
    expect(text).toMatch(/node:latest/);
    expect(text).toMatch(/needs --prod/);
  });

  it("reject a missing health check and a .dockerignore that lets node_modules in", () => {
    const broken = dockerfile.replace(/HEALTHCHECK[^\n]*\\\n[^\n]*\n/, "");
    const text = messages(dockerfileProblems(broken, dockerignore.replace("**/node_modules\n", "")));
    expect(text).toMatch(/HEALTHCHECK/);
    expect(text).toMatch(/node_modules/);
  });
});
