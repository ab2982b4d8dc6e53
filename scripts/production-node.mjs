/**
 * Prints the PATH under which the repo's scripts run on the Node version production ships: the one
 * of deploy/Dockerfile's image (NODE_IMAGE). When the machine's own Node is that major version or
 * newer, the PATH is unchanged; when it is older, the official binary of exactly that version is
 * installed once from the npm registry (the `node` package) into a cache directory, and its
 * directory goes first. `scripts/with-production-node` runs a command under that PATH.
 *
 *   node scripts/production-node.mjs            # prints the PATH
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The Node version of the production image, e.g. "22.23.3". */
export function productionNodeVersion() {
  const dockerfile = readFileSync(join(ROOT, "deploy", "Dockerfile"), "utf8");
  const version = /^ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)-/m.exec(dockerfile)?.[1];
  if (!version) throw new Error("deploy/Dockerfile names no node:X.Y.Z image in ARG NODE_IMAGE");
  return version;
}

const major = (version) => Number(version.split(".")[0]);

/** The directory of a Node binary of the production version, installed from the registry if missing. */
function installedProductionNode(version) {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  const prefix = join(cache, "rda", `node-${version}`);
  const bin = join(prefix, "node_modules", ".bin");
  if (!existsSync(join(bin, "node"))) {
    process.stderr.write(
      `installing Node ${version}, the production image's, from the npm registry into ${prefix}\n`,
    );
    execFileSync(
      "npm",
      ["install", "--prefix", prefix, "--no-fund", "--no-audit", "--no-save", `node@${version}`],
      {
        stdio: ["ignore", 2, 2],
      },
    );
  }
  const got = execFileSync(join(bin, "node"), ["--version"], { encoding: "utf8" }).trim();
  if (got !== `v${version}`) throw new Error(`${join(bin, "node")} is ${got}, not v${version}`);
  return bin;
}

export function productionNodePath(env = process.env) {
  const version = productionNodeVersion();
  if (major(process.versions.node) >= major(version)) return env.PATH ?? "";
  return [installedProductionNode(version), env.PATH].filter(Boolean).join(delimiter);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(productionNodePath());
}
