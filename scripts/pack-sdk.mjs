/**
 * The SDK as customers install it: `pnpm pack` of packages/sdk (its prepack builds dist/ with tsup),
 * written where the developer portal serves it from (`<portal>/sdk/rda-sdk-<version>.tgz`).
 * `pnpm start` and `pnpm build` call it; packing again is skipped while the tarball is newer than
 * every file of the SDK's sources and manifest.
 */
import { execFileSync } from "node:child_process";
import {
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

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const SDK = join(ROOT, "packages", "sdk");
/** Where the portal finds the tarball when it runs from its sources or from its dist/ build. */
export const PORTAL_SDK_DIR = join(ROOT, "services", "portal", "dist", "sdk");

/** The tarball's file name: npm's `<scope>-<name>-<version>.tgz`, the scope's "@" dropped. */
export function sdkTarballName() {
  const { name, version } = JSON.parse(readFileSync(join(SDK, "package.json"), "utf8"));
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

function newestSourceTime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name === "test") continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceTime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Packs the SDK into `destination` unless an up-to-date tarball is there; returns its path. */
export function packSdk(destination = PORTAL_SDK_DIR) {
  const tarball = join(destination, sdkTarballName());
  if (existsSync(tarball) && statSync(tarball).mtimeMs >= newestSourceTime(SDK)) return tarball;
  mkdirSync(destination, { recursive: true });
  // Packed beside, then renamed into place: a portal serving the folder, or another stack starting
  // at the same moment, never sees half a tarball.
  const scratch = mkdtempSync(join(destination, ".packing-"));
  try {
    execFileSync("pnpm", ["pack", "--pack-destination", scratch], { cwd: SDK, stdio: "ignore" });
    renameSync(join(scratch, sdkTarballName()), tarball);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return tarball;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(packSdk(process.argv[2]));
