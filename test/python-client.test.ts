/**
 * The Python client as a customer gets it: its wheel built offline (scripts/pack-python-client.mjs),
 * served by the developer portal beside the TypeScript SDK, installed with the portal's own
 * `pip install <url>` into a fresh virtual environment that sees Debian's httpx, pytest and pandas;
 * then the client's own tests (clients/python/tests) run in it against this stack over real HTTP:
 * every route, paging row for row, a retry after a forced 502 charged once, an export in pandas equal
 * to paging, webhooks verified and a tampered one refused. Its generated files must also be fresh.
 *
 * Needs Debian's python3-venv, python3-build, python3-hatchling, python3-httpx, python3-pytest and
 * python3-pandas (.ci/run installs them); without them this file is skipped with a line saying so,
 * unless RDA_REQUIRE_PYTHON=1 (set by .ci/run) makes that a failure.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderPythonClientFiles } from "../scripts/generate-python-client.ts";
import { buildPythonWheel, PYTHON, PYTHON_CLIENT, wheelName } from "../scripts/pack-python-client.mjs";
import type { RunningMonitors } from "../services/monitors/src/index.ts";
import { firstRequestSnippets } from "../services/portal/src/snippets.ts";
import { type ExportsBeside, startExportsBeside } from "./e2e/exports.support.ts";
import { startMonitorsBeside } from "./e2e/monitor-webhooks.support.ts";
import { type Stack, startStack } from "./support/stack.ts";

const run = promisify(execFile);

function pythonProblem(): string | undefined {
  try {
    execFileSync(PYTHON, ["-c", "import ensurepip, build, hatchling, httpx, pytest, pandas"], {
      stdio: "ignore",
    });
    return undefined;
  } catch {
    return `${PYTHON} lacks Debian's python3-venv, -build, -hatchling, -httpx, -pytest or -pandas`;
  }
}

const problem = pythonProblem();
if (problem && process.env.RDA_REQUIRE_PYTHON === "1") throw new Error(problem);
if (problem) console.warn(`python-client.test.ts skipped: ${problem}`);

describe("the Python client's generated files", () => {
  it("match the contracts; after a contract change, run: pnpm exec tsx scripts/generate-python-client.ts", async () => {
    const fresh = await renderPythonClientFiles();
    for (const [name, text] of Object.entries(fresh)) {
      const path = join(PYTHON_CLIENT, "src", "rda", "_generated", name);
      expect(await readFile(path, "utf8"), `${path} is stale`).toBe(text);
    }
  });
});

describe.skipIf(problem !== undefined)(
  "the Python client, installed from the portal, against a stack",
  () => {
    let stack: Stack;
    let monitors: RunningMonitors;
    let exportsService: ExportsBeside;
    let work: string;
    let python: string;

    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), "rda-python-"));
      const served = join(work, "served");
      expect(buildPythonWheel(served)).toBe(join(served, wheelName()));
      stack = await startStack({ portal: true, portalSettings: { sdkDir: served } });
      monitors = await startMonitorsBeside(stack);
      exportsService = await startExportsBeside(stack);
      await run(PYTHON, ["-m", "venv", "--system-site-packages", join(work, "venv")]);
      python = join(work, "venv", "bin", "python");
      await installAsThePortalSays();
    }, 180_000);

    let pipCommand: string;
    /** The portal's command as shown; offline, httpx comes from Debian's packages the venv sees. */
    async function installAsThePortalSays(): Promise<void> {
      const url = `${stack.portal!.url}/sdk/${wheelName()}`;
      pipCommand = firstRequestSnippets(stack.gatewayUrl, "rdk_x", undefined, url).pythonInstall!;
      const [, ...args] = pipCommand.split(" ");
      await run(join(work, "venv", "bin", "pip"), [...args, "--no-index", "--disable-pip-version-check"]);
    }

    afterAll(async () => {
      await monitors?.stop();
      await exportsService?.stop();
      await stack?.stop();
      if (work) await rm(work, { recursive: true, force: true });
    });

    it("installs with the portal's and the README's pip command and imports", async () => {
      const url = `${stack.portal!.url}/sdk/${wheelName()}`;
      expect(pipCommand).toBe(`pip install ${url}`);
      const readme = await readFile(join(PYTHON_CLIENT, "README.md"), "utf8");
      expect(readme).toContain(`pip install http://127.0.0.1:8060/sdk/${wheelName()}`);
      const served = await fetch(url);
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer())).toEqual(
        await readFile(join(work, "served", wheelName())),
      );
      // The API reference (/docs renders this document) links the client's guide, which the portal serves.
      const reference = (await (await fetch(`${stack.gatewayUrl}/openapi.json`)).json()) as {
        info: { description: string };
      };
      const guide = `${stack.portal!.url}/sdk/python-client.md`;
      expect(reference.info.description).toContain(`(${guide})`);
      const servedGuide = await fetch(guide);
      expect(servedGuide.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
      expect(await servedGuide.text()).toBe(readme);
      const { stdout } = await run(python, ["-c", "import rda, sys; print(rda.__version__, rda.__file__)"]);
      expect(stdout).toContain(join(work, "venv"));
    }, 60_000);

    it("passes its own tests against this stack over HTTP", async () => {
      const { key } = await stack.createKey({ credits: 100_000, qps: 10_000, burst: 10_000 });
      const slow = await stack.createKey({ credits: 10, qps: 1, burst: 1 });
      const spare = await stack.createKey({ credits: 10, qps: 100, burst: 100 });
      const env = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        RDA_BASE_URL: stack.gatewayUrl,
        RDA_API_KEY: key,
        RDA_SIM_URL: stack.simulatorUrl,
        RDA_SLOW_API_KEY: slow.key,
        RDA_SPARE_API_KEY: spare.key,
      };
      const args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", join(PYTHON_CLIENT, "tests")];
      const outcome = await run(python, args, { cwd: work, env, maxBuffer: 16 * 1024 * 1024 }).then(
        ({ stdout }) => ({ code: 0, output: stdout }),
        (failure: { code?: number; stdout?: string; stderr?: string }) => ({
          code: failure.code ?? -1,
          output: `${failure.stdout ?? ""}${failure.stderr ?? ""}`,
        }),
      );
      // 5: pytest collected nothing, which is a failure here too.
      expect(outcome.code, outcome.output).toBe(0);
      expect(outcome.output).toMatch(/\d+ passed/);
      expect(outcome.output).not.toMatch(/skipped/);
    }, 240_000);
  },
);
