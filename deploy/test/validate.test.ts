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
import {
  type ObservabilityFiles,
  observabilityFiles,
  observabilityProblems,
} from "../validate/observability.ts";

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
    PORTAL_PORT: port,
    SIM_PORT: port,
    PAYMENTS_SIM_PORT: port,
    HEALTH_PORT: port,
    EXPORTS_PORT: port,
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
  }, 120_000); // two node processes per service: slow on a busy machine, not wrong
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
    replaceIn(
      join(overrides, "scale.yml"),
      /( {2}nats-3:\n.*\n {4}command:\n(.*\n)*? {6}- \/etc\/rda\/nats\/cluster.conf\n) {6}- -js\n/,
      "$1",
    );
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
        join(k8s, "base", "gateway.yaml"),
        / {2}selector:\n {4}matchLabels:\n {6}app.kubernetes.io\/name: gateway\n {2}template:/,
        "  template:",
      );
    });
    const { objects } = renderKustomization(join(copy.kubernetesDir, "base"));
    const text = messages(await validateObjectSchemas(objects, "base"));
    expect(text).toMatch(/Deployment\/billing\/spec\/replicas.*integer/);
    expect(text).toMatch(/Deployment\/gateway.*selector/);
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

  it("reject pods without a scraped metrics port, and a Service that routes it", async () => {
    const copy = brokenCopy(({ k8s }) => {
      replaceIn(join(k8s, "base", "billing.yaml"), '        prometheus.io/scrape: "true"\n', "");
      replaceIn(join(k8s, "base", "gateway.yaml"), "      targetPort: http\n", "      targetPort: metrics\n");
    });
    const { objects } = renderKustomization(join(copy.kubernetesDir, "base"));
    const text = messages(validateObjectRules(objects, "base"));
    expect(text).toMatch(/Deployment\/billing: pods need prometheus.io\/scrape/);
    expect(text).toMatch(/Deployment\/gateway Service\/gateway: must not route the metrics port/);
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
      replaceIn(join(k8s, "base", "kustomization.yaml"), "  - adapters/users\n", "");
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

  it("reject a production overlay that keeps a stream-owning service's streams on one node", async () => {
    const copy = brokenCopy(({ k8s }) => {
      const production = join(k8s, "overlays", "production", "kustomization.yaml");
      replaceIn(production, / {6}- op: add\n {8}path: \/data\/NATS_REPLICAS\n {8}value: "3"\n/, "");
      // One service given its own value overrides the ConfigMap's.
      replaceIn(
        join(k8s, "base", "exports.yaml"),
        "          env:\n",
        '          env:\n            - name: NATS_REPLICAS\n              value: "1"\n',
      );
    });
    const text = messages((await validateDeployment(copy)).problems);
    // The notices worker runs the portal's image under a name of its own: it sets up the notice stream.
    for (const deployment of ["billing", "portal", "notices"])
      expect(text).toMatch(
        new RegExp(
          `overlays/production Deployment/${deployment}: sets up JetStream streams, so needs NATS_REPLICAS=3 \\(has none: 1\\)`,
        ),
      );
    expect(text).toMatch(/overlays\/production Deployment\/exports: .*NATS_REPLICAS=3 \(has 1\)/);
    // Monitors keep their poll state and leases in Redis: no stream of theirs to copy.
    for (const service of ["gateway", "monitors"])
      expect(text).not.toMatch(new RegExp(`Deployment/${service}: sets up JetStream`));
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

describe("internal plane checks: identities, credentials, network policies", () => {
  it("reject a pod connecting as another identity, a literal password, a Redis URL without its own user, and a password in a ConfigMap", async () => {
    const copy = brokenCopy(({ k8s }) => {
      const base = join(k8s, "base");
      replaceIn(
        join(base, "gateway.yaml"),
        "              value: gateway\n",
        "              value: billing\n",
      );
      replaceIn(
        join(base, "billing.yaml"),
        /( {12}- name: NATS_PASSWORD\n) {14}valueFrom:\n {16}secretKeyRef:\n {18}name: rda-nats-users\n {18}key: billing\n/,
        '$1              value: "change-me"\n',
      );
      replaceIn(
        join(base, "portal.yaml"),
        'value: "redis://portal:$(REDIS_PASSWORD)@',
        'value: "redis://:$(REDIS_PASSWORD)@',
      );
      replaceIn(
        join(base, "config.yaml"),
        "  LOG_LEVEL: info\n",
        "  LOG_LEVEL: info\n  NATS_PASSWORD: secret\n",
      );
    });
    const text = messages((await validateDeployment(copy)).problems);
    expect(text).toMatch(
      /base Deployment\/gateway: must connect to NATS as its own identity: NATS_USER gateway/,
    );
    expect(text).toMatch(/base Deployment\/billing: NATS_PASSWORD must come from a Secret/);
    expect(text).toMatch(/base Deployment\/portal: REDIS_URL must name its own user/);
    expect(text).toMatch(/base ConfigMap\/rda-config: NATS_PASSWORD: credentials belong in a Secret/);
  });

  it("reject manifests without a default deny, or with a pod no policy opens flows for", async () => {
    const copy = brokenCopy(({ k8s }) => {
      const policies = join(k8s, "base", "network-policies.yaml");
      replaceIn(
        policies,
        /apiVersion: networking.k8s.io\/v1\nkind: NetworkPolicy\nmetadata:\n {2}name: default-deny\n(.*\n)+?---\n/,
        "",
      );
      replaceIn(policies, /# The MCP service:.*\n(.*\n)+?---\n/, "");
    });
    const text = messages((await validateDeployment(copy)).problems);
    expect(text).toMatch(/kubernetes\/base: needs a default-deny NetworkPolicy/);
    expect(text).toMatch(/base Deployment\/mcp: no NetworkPolicy opens the flows it needs/);
  });

  it("reject a compose service whose password variable is not its server's, and a Redis URL without a user", async () => {
    const copy = brokenCopy(({ compose }) => {
      replaceIn(
        compose,
        /NATS_PASSWORD: \$\{NATS_PASSWORD_GATEWAY:-/,
        "NATS_PASSWORD: $${NATS_PASSWORD_BILLING:-",
      );
      replaceIn(
        compose,
        /REDIS_URL: redis:\/\/portal:\$\{REDIS_PASSWORD_PORTAL:-dev-only-redis-portal\}@/,
        "REDIS_URL: redis://",
      );
    });
    const text = messages((await validateDeployment(copy)).problems);
    expect(text).toMatch(/services.gateway: NATS_PASSWORD must be \$\{NATS_PASSWORD_GATEWAY:-…\}/);
    expect(text).toMatch(/services.portal: REDIS_URL must carry its own ACL user/);
  });

  it("reject a portal whose gateway credentials' secret is not the gateway's, or is the MCP service's", async () => {
    const copy = brokenCopy(({ compose, k8s }) => {
      replaceIn(
        join(k8s, "base", "portal.yaml"),
        /( {16}secretKeyRef:\n {18}name: rda-oauth\n {18}key: )portal-gateway-secret\n/,
        "$1signing-key\n",
      );
      replaceIn(
        join(k8s, "base", "gateway.yaml"),
        /( {18}name: rda-oauth\n {18}key: )portal-gateway-secret\n/,
        "$1gateway-internal-secret\n",
      );
      replaceIn(
        compose,
        /( {6}PORTAL_GATEWAY_SECRET: \$\{)PORTAL_GATEWAY_SECRET:-dev-only-portal-gateway-secret-0123456789(\}\n {6}# Unset)/,
        "$1GATEWAY_INTERNAL_SECRET:-$2",
      );
      replaceIn(
        compose,
        "      GATEWAY_URL: http://gateway:8081\n      PORTAL_GATEWAY",
        "      GATEWAY_URL: http://gateway:8080\n      PORTAL_GATEWAY",
      );
    });
    const text = messages((await validateDeployment(copy)).problems);
    expect(text).toMatch(/base Deployment\/portal: PORTAL_GATEWAY_SECRET must be the gateway's Secret key/);
    expect(text).toMatch(
      /base Deployment\/gateway: PORTAL_GATEWAY_SECRET must not be GATEWAY_INTERNAL_SECRET's/,
    );
    expect(text).toMatch(
      /services.portal: PORTAL_GATEWAY_SECRET must be the gateway's, with the same default/,
    );
    expect(text).toMatch(/services.portal: GATEWAY_URL must be the gateway's internal listener/);
  });

  it("reject chart values whose Redis rules differ from users.acl, or whose NATS lacks auth.conf or TLS", async () => {
    const copy = brokenCopy(({ k8s }) => {
      const dependencies = join(k8s, "dependencies");
      replaceIn(join(dependencies, "redis-values.yaml"), 'keys: "~rda:idempotency:*', 'keys: "~rda:*');
      replaceIn(join(dependencies, "nats-values.yaml"), "    00$include: auth.conf\n", "");
      replaceIn(join(dependencies, "nats-values.yaml"), "        verify: true\n", "");
    });
    const text = messages((await validateDeployment(copy)).problems);
    expect(text).toMatch(
      /redis-values.yaml: auth.acl.users gateway must carry the rules of deploy\/redis\/users.acl/,
    );
    expect(text).toMatch(/nats-values.yaml: config.merge must include auth.conf/);
    expect(text).toMatch(/nats-values.yaml: routes must speak TLS and present a certificate/);
  });
});

describe("deploy/observability checks", () => {
  function brokenObservability(edit: (files: ObservabilityFiles) => void): ObservabilityFiles {
    const dir = mkdtempSync(join(scratch, "observability-"));
    cpSync(layout.observabilityDir, dir, { recursive: true });
    const files = observabilityFiles(dir);
    edit(files);
    return files;
  }

  it("pass on the repository's alert rules, scrape configuration and dashboard", () => {
    expect(messages(observabilityProblems(observabilityFiles(layout.observabilityDir), services))).toBe("");
  });

  it("reject an alert whose expression promtool refuses, and one without a severity", () => {
    const files = brokenObservability(({ alerts }) => {
      replaceIn(alerts, 'expr: up{job="rda"} == 0', 'expr: up{job="rda" == 0');
      replaceIn(alerts, "          severity: warn\n", "");
    });
    const text = messages(observabilityProblems(files, services));
    expect(text).toMatch(/alerts.yml: promtool: .*FAILED/s);
    expect(text).toMatch(/needs a severity label/);
  });

  it("reject a scrape configuration that misses a service, and a panel querying another data source", () => {
    const files = brokenObservability(({ prometheus, dashboard }) => {
      replaceIn(prometheus, " billing,", "");
      replaceIn(dashboard, /"uid": "rda-prometheus"/, '"uid": "elsewhere"');
    });
    const text = messages(observabilityProblems(files, services));
    expect(text).toMatch(/prometheus.yml: does not scrape billing/);
    expect(text).toMatch(
      /rda.json "Requests per second by route": must query the data source rda-prometheus/,
    );
  });
});

describe("Dockerfile checks", () => {
  const dockerfile = readFileSync(layout.dockerfile, "utf8");
  const dockerignore = readFileSync(layout.dockerignore, "utf8");

  it("reject a root user, an unpinned base image, an install ignoring the lockfile and node_modules in the image", () => {
    const broken = dockerfile
      .replace("USER node", "USER root")
      .replace("ARG NODE_IMAGE=node:22.23.3-bookworm-slim", "ARG NODE_IMAGE=node:latest")
      .replace("--offline --frozen-lockfile", "--offline")
      .replace(
        "COPY deploy/healthcheck.mjs",
        "COPY --from=build /repo/node_modules ./node_modules\nCOPY deploy/healthcheck.mjs",
      );
    const text = messages(dockerfileProblems(broken, dockerignore));
    expect(text).toMatch(/non-root USER/);
    expect(text).toMatch(/node:latest/);
    expect(text).toMatch(/needs --frozen-lockfile/);
    expect(text).toMatch(/must not copy node_modules/);
  });

  it("reject an image that runs TypeScript through tsx at run time", () => {
    const broken = dockerfile.replace(
      'CMD ["node", "--enable-source-maps", "dist/main.mjs"]',
      'CMD ["node", "--import", "tsx", "src/main.ts"]',
    );
    expect(broken).not.toBe(dockerfile);
    expect(messages(dockerfileProblems(broken, dockerignore))).toMatch(/built JavaScript/);
  });

  it("reject a missing health check and a .dockerignore that lets node_modules in", () => {
    const broken = dockerfile.replace(/HEALTHCHECK[^\n]*\\\n[^\n]*\n/, "");
    const text = messages(dockerfileProblems(broken, dockerignore.replace("**/node_modules\n", "")));
    expect(text).toMatch(/HEALTHCHECK/);
    expect(text).toMatch(/node_modules/);
  });
});
