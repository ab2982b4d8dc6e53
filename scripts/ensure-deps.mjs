/**
 * Installs the dependencies from the lockfile when they are missing or older than it, so a fresh
 * clone needs no separate install step. It replaces pnpm's own check before every script
 * (verify-deps-before-run), which costs about half a second each time: this one compares a few file
 * times, and only the scripts that need it run it (`pnpm admin` stays fast).
 *
 *   node scripts/ensure-deps.mjs && <the script's command>
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** pnpm writes this after every install of the workspace. */
const INSTALL_STATE = join(ROOT, "node_modules", ".pnpm-workspace-state-v1.json");

const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);

/** The files whose change calls for an install: the lockfile and every workspace manifest. */
function manifests() {
  const inFolder = (folder) =>
    existsSync(join(ROOT, folder))
      ? readdirSync(join(ROOT, folder)).map((name) => join(ROOT, folder, name, "package.json"))
      : [];
  return [
    join(ROOT, "pnpm-lock.yaml"),
    join(ROOT, "package.json"),
    join(ROOT, "pnpm-workspace.yaml"),
    ...inFolder("packages"),
    ...inFolder("services"),
  ];
}

export function dependenciesAreCurrent() {
  const installed = mtime(INSTALL_STATE);
  return installed > 0 && manifests().every((path) => mtime(path) <= installed);
}

export function ensureDependencies() {
  if (dependenciesAreCurrent()) return;
  process.stderr.write("installing dependencies from the lockfile (pnpm install --frozen-lockfile)\n");
  execFileSync("pnpm", ["install", "--frozen-lockfile", "--reporter=append-only"], {
    cwd: ROOT,
    stdio: ["ignore", 2, 2],
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) ensureDependencies();
