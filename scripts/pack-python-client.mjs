/**
 * The Python client as customers install it: a wheel of clients/python, built offline with Debian's
 * python3-build and python3-hatchling, written where the developer portal serves it from
 * (`<portal>/sdk/rda_client-<version>-py3-none-any.whl`, beside the TypeScript SDK's tarball), with
 * its README (`<portal>/sdk/python-client.md`, which the API reference at /docs links).
 * `pnpm start` and `pnpm build` call it; building again is skipped while the wheel is newer than every
 * file of the client. Without a Python that can build it, it says so in one line and builds nothing.
 */
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PORTAL_SDK_DIR } from "./pack-sdk.mjs";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
export const PYTHON_CLIENT = join(ROOT, "clients", "python");
/** Debian's interpreter, whose packages (httpx, build, hatchling) the build and the tests use. */
export const PYTHON =
  process.env.RDA_PYTHON ?? (existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3");

/** The README's name where the portal serves it. */
export const README_NAME = "python-client.md";

/** The wheel's file name: `<distribution>-<version>-py3-none-any.whl`, the name's dashes as underscores. */
export function wheelName() {
  const manifest = readFileSync(join(PYTHON_CLIENT, "pyproject.toml"), "utf8");
  const name = /^name = "([^"]+)"/m.exec(manifest)?.[1];
  const version = /^version = "([^"]+)"/m.exec(manifest)?.[1];
  return `${name.replace(/-/g, "_")}-${version}-py3-none-any.whl`;
}

/** Why this machine cannot build the wheel, or undefined when it can. */
export function cannotBuildWheel() {
  try {
    execFileSync(PYTHON, ["-c", "import build, hatchling"], { stdio: "ignore" });
    return undefined;
  } catch {
    return `${PYTHON} with the build and hatchling modules is missing (apt-get install python3-build python3-hatchling)`;
  }
}

function newestSourceTime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (["tests", "dist", "__pycache__", ".pytest_cache"].includes(entry.name)) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceTime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds the wheel into `destination` unless an up-to-date one is there; returns its path, or
 * undefined (after `log` says why) when this machine cannot build it.
 */
export function buildPythonWheel(destination = PORTAL_SDK_DIR, log = console.log) {
  const wheel = join(destination, wheelName());
  const fresh = existsSync(wheel) && statSync(wheel).mtimeMs >= newestSourceTime(PYTHON_CLIENT);
  if (fresh && existsSync(join(destination, README_NAME))) return wheel;
  const problem = cannotBuildWheel();
  if (problem) {
    log(`the Python client's wheel is not built: ${problem}`);
    return undefined;
  }
  mkdirSync(destination, { recursive: true });
  // Built beside, then renamed into place: the portal never serves half a wheel.
  const scratch = mkdtempSync(join(destination, ".building-"));
  try {
    // Offline: Debian's hatchling, no isolated environment, no download of build requirements.
    const args = ["-m", "build", "--no-isolation", "--skip-dependency-check", "--wheel", "--outdir", scratch];
    execFileSync(PYTHON, [...args, PYTHON_CLIENT], { stdio: "ignore" });
    copyFileSync(join(PYTHON_CLIENT, "README.md"), join(scratch, README_NAME));
    renameSync(join(scratch, README_NAME), join(destination, README_NAME));
    renameSync(join(scratch, wheelName()), wheel);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return wheel;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(buildPythonWheel(process.argv[2]) ?? "");
