/**
 * Validates the deployment files without a container engine (CI runs it):
 *   pnpm exec tsx deploy/validate.ts
 * Exit 0 when docker-compose.yml, every kustomization of deploy/kubernetes and the chart values are
 * valid and name the same services as services/; exit 1 with one line per problem otherwise.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  dockerComposeConfig,
  formatProblems,
  repositoryLayout,
  validateDeployment,
} from "./validate/index.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const layout = repositoryLayout(root);
const started = Date.now();
const { problems, checked } = await validateDeployment(layout);
const composeV1 = dockerComposeConfig(layout);
if (composeV1 !== "not installed") problems.push(...composeV1);

for (const item of checked) process.stdout.write(`checked ${item}\n`);
process.stdout.write(
  `docker-compose v1 config -q: ${composeV1 === "not installed" ? "not installed, skipped" : composeV1.length ? "FAILED" : "ok"}\n`,
);
if (problems.length > 0) {
  process.stderr.write(`deploy validation: ${problems.length} problem(s)\n${formatProblems(problems)}\n`);
  process.exit(1);
}
process.stdout.write(`deploy validation: ok in ${Date.now() - started} ms\n`);
