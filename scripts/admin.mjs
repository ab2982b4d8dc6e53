/**
 * `pnpm admin`: the operator CLI, run as the JavaScript that `pnpm build` makes of it
 * (services/billing/dist/admin.mjs), rebuilt here first when a source is newer than the built file.
 * No TypeScript is transpiled on a normal run, and pnpm's dependency check is skipped (.npmrc): a
 * call costs pnpm's own start-up and about a tenth of a second of Node.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildTarget, ROOT } from "./build.mjs";
import { ensureDependencies } from "./ensure-deps.mjs";

const TARGET = ["services/billing/dist/admin.mjs", "services/billing/src/cli/main.ts"];
/** Everything the CLI is built from: the workspace packages, billing's sources, the lockfile. */
const SOURCES = ["packages", "services/billing/src", "pnpm-lock.yaml"];

function newestChange(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === "node_modules" || entry === "dist" || entry === "test") continue;
    newest = Math.max(newest, newestChange(join(path, entry)));
  }
  return newest;
}

const built = join(ROOT, TARGET[0]);
const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
if (builtAt === 0 || SOURCES.some((source) => newestChange(join(ROOT, source)) > builtAt)) {
  ensureDependencies();
  await buildTarget(TARGET);
}
await import(pathToFileURL(built).href);
