/**
 * Builds every service to plain JavaScript for production: each `services/<name>/src/main.ts` (and
 * the operator CLI, `services/billing/src/cli/main.ts`) becomes one ES module under
 * `services/<name>/dist/` with the workspace packages and their dependencies bundled in, so an image
 * runs `node dist/main.mjs` with no TypeScript compiler, no tsx and no node_modules.
 *
 *   pnpm build                  every service
 *   pnpm build gateway billing  only those
 *   pnpm build --if-changed …   only what changed since its last build (the tests' way: several
 *                               test files start the same built services, some at once)
 *
 * Plain JavaScript on purpose: `pnpm admin` (scripts/admin.mjs) imports it without any loader.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildPythonWheel } from "./pack-python-client.mjs";
import { packSdk } from "./pack-sdk.mjs";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** What each built file is made from: `[output, entry]`, paths relative to the repository. */
export function buildTargets(services = serviceNames()) {
  return services.flatMap((name) => {
    const targets = [[`services/${name}/dist/main.mjs`, `services/${name}/src/main.ts`]];
    if (existsSync(join(ROOT, "services", name, "src", "cli", "main.ts"))) {
      targets.push([`services/${name}/dist/admin.mjs`, `services/${name}/src/cli/main.ts`]);
    }
    // A second process of the same service (the portal's notices worker), run from the same image.
    if (existsSync(join(ROOT, "services", name, "src", "notices-main.ts"))) {
      targets.push([`services/${name}/dist/notices.mjs`, `services/${name}/src/notices-main.ts`]);
    }
    return targets;
  });
}

export function serviceNames() {
  return readdirSync(join(ROOT, "services")).filter((name) =>
    existsSync(join(ROOT, "services", name, "src", "main.ts")),
  );
}

/** Folders a service reads at run time beside its code (templates, static files): copied to dist/. */
const RUNTIME_FOLDERS = ["views", "public"];

/**
 * Files a service serves straight from a dependency, copied into dist/ since an image has no
 * node_modules: `[package file, place under dist/]`. The service looks there first.
 */
const VENDORED_FILES = {
  portal: [["htmx.org/dist/htmx.min.js", "public/vendor/htmx.min.js"]],
};

/**
 * Packages that cannot be bundled because they load a native binary (DuckDB's engine): left out of
 * the bundle and copied, with the packages they need, into the service's dist/node_modules/, where
 * Node finds them from dist/main.mjs. The binary is the build machine's platform's, so an image
 * builds them on the platform it runs on (deploy/Dockerfile: Debian, glibc, on both stages).
 */
const NATIVE_PACKAGES = {
  exports: ["@duckdb/node-api"],
};

/** Copies `name` as installed for `fromDir`, and what it depends on, into `nodeModules`. */
function copyInstalledPackage(name, fromDir, nodeModules, copied = new Set()) {
  if (copied.has(name)) return;
  const require = createRequire(join(fromDir, "package.json"));
  let manifest;
  try {
    manifest = require.resolve(`${name}/package.json`);
  } catch {
    return; // an optional dependency of another platform: not installed, not needed
  }
  const source = dirname(realpathSync(manifest));
  copied.add(name);
  cpSync(source, join(nodeModules, name), { recursive: true, dereference: true });
  const { dependencies = {}, optionalDependencies = {} } = JSON.parse(readFileSync(manifest, "utf8"));
  for (const dependency of Object.keys({ ...dependencies, ...optionalDependencies })) {
    copyInstalledPackage(dependency, source, nodeModules, copied);
  }
}

/** Copies a service's run-time folders and vendored files into its dist/ (the portal: both SDKs too). */
export function copyRuntimeFiles(name) {
  const service = join(ROOT, "services", name);
  if (name === "portal") {
    packSdk(join(service, "dist", "sdk"));
    buildPythonWheel(join(service, "dist", "sdk"));
  }
  for (const folder of RUNTIME_FOLDERS) {
    const source = join(service, "src", folder);
    if (existsSync(source)) cpSync(source, join(service, "dist", folder), { recursive: true });
  }
  const require = createRequire(join(service, "package.json"));
  for (const [file, place] of VENDORED_FILES[name] ?? []) {
    const target = join(service, "dist", place);
    mkdirSync(dirname(target), { recursive: true });
    cpSync(require.resolve(file), target);
  }
  const nodeModules = join(service, "dist", "node_modules");
  rmSync(nodeModules, { recursive: true, force: true });
  for (const native of NATIVE_PACKAGES[name] ?? []) copyInstalledPackage(native, service, nodeModules);
}

// Bundled CommonJS dependencies call require() and read __dirname; an ES module has neither.
const BANNER = [
  'import { createRequire as __rdaCreateRequire } from "node:module";',
  'import { fileURLToPath as __rdaFileURLToPath } from "node:url";',
  "const require = __rdaCreateRequire(import.meta.url);",
  "const __filename = __rdaFileURLToPath(import.meta.url);",
  'const __dirname = __filename.slice(0, __filename.lastIndexOf("/"));',
].join("\n");

/** The service an entry file belongs to: `services/<name>/src/…`. */
const serviceOf = (entry) => entry.split("/")[1];

/**
 * What a built file was made from: each input's size and modification time, the bundle's inputs as
 * esbuild reported them plus what else lands in dist/ (this script, the lockfile, which pins the
 * native packages copied, and the service's run-time folders). Kept in node_modules' cache, not in
 * dist/, which an image copies whole.
 */
const stampPath = (output) =>
  join(ROOT, "node_modules", ".cache", "rda-build", `${output.replaceAll("/", "+")}.inputs.json`);

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

function stampOf(files) {
  const stamp = {};
  for (const file of files.sort()) {
    const stat = statSync(file, { throwIfNoEntry: false });
    stamp[file] = stat === undefined ? null : `${stat.size}:${stat.mtimeMs}`;
  }
  return stamp;
}

const alwaysInputs = (entry) => [
  fileURLToPath(import.meta.url),
  join(ROOT, "pnpm-lock.yaml"),
  ...RUNTIME_FOLDERS.flatMap((folder) => filesUnder(join(ROOT, "services", serviceOf(entry), "src", folder))),
];

/** The output exists and none of what it was made from changed since. */
export function isUpToDate([output, entry]) {
  if (!existsSync(join(ROOT, output))) return false;
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(stampPath(output), "utf8"));
  } catch {
    return false;
  }
  const files = [...new Set([...Object.keys(recorded), ...alwaysInputs(entry)])];
  return JSON.stringify(stampOf(files)) === JSON.stringify(recorded);
}

/**
 * Builds one `[output, entry]` target; resolves when it is written. Each file is written beside its
 * place and renamed into it, so a process starting the old build meanwhile never reads half a file.
 */
export async function buildTarget([output, entry]) {
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    outfile: join(ROOT, output),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    sourcemap: true,
    external: NATIVE_PACKAGES[serviceOf(entry)] ?? [],
    banner: { js: BANNER },
    logLevel: "warning",
    write: false,
    metafile: true,
  });
  for (const file of result.outputFiles) writeInPlace(file.path, file.contents);
  const bundled = Object.keys(result.metafile.inputs)
    .filter((input) => !input.includes(":"))
    .map((input) => resolve(input));
  writeInPlace(stampPath(output), JSON.stringify(stampOf([...bundled, ...alwaysInputs(entry)])));
}

function writeInPlace(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, contents);
  renameSync(partial, path);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifChanged = process.argv.includes("--if-changed");
  const wanted = process.argv.slice(2).filter((arg) => arg !== "--if-changed");
  const unknown = wanted.filter((name) => !serviceNames().includes(name));
  if (unknown.length > 0) {
    process.stderr.write(
      `build: no service named ${unknown.join(", ")}; services: ${serviceNames().join(", ")}\n`,
    );
    process.exit(2);
  }
  const started = Date.now();
  const services = wanted.length > 0 ? wanted : serviceNames();
  // A service is built again whole (its bundles and run-time files) when any of its targets changed.
  const stale = services.filter((name) => !ifChanged || !buildTargets([name]).every(isUpToDate));
  const targets = buildTargets(stale);
  await Promise.all(targets.map(buildTarget));
  for (const name of stale) copyRuntimeFiles(name);
  const fresh = services.filter((name) => !stale.includes(name));
  process.stdout.write(
    `built ${targets.map(([output]) => output).join(", ") || "nothing"} in ${Date.now() - started} ms${
      fresh.length > 0 ? ` (up to date: ${fresh.join(", ")})` : ""
    }\n`,
  );
}
