/**
 * The SDKs, so that they install as their docs say before they are on a registry: the TypeScript
 * SDK's tarball (`npm install <portal>/sdk/rda-sdk-<version>.tgz`) and the Python client's wheel
 * (`pip install <portal>/sdk/rda_client-<version>-py3-none-any.whl`). `pnpm start` and `pnpm build`
 * put them in the portal's SDK folder (scripts/pack-sdk.mjs, scripts/pack-python-client.mjs); the
 * portal serves the files it finds there, and names them in the "first request" snippets.
 */
import { createReadStream, existsSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { sendPageError } from "../http/render.ts";

const TARBALL = /^rda-sdk-\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?\.tgz$/;
const WHEEL = /^rda_client-\d+\.\d+\.\d+(?:[0-9A-Za-z.]+)?-py3-none-any\.whl$/;
/** The Python client's README, written beside its wheel; the API reference links it. */
const PYTHON_README = "python-client.md";

const HERE = dirname(fileURLToPath(import.meta.url));
/**
 * Where scripts/pack-sdk.mjs writes the tarball: `services/portal/dist/sdk`, seen from the sources
 * (src/routes/) or from the bundle (dist/main.mjs, which is this module once built).
 */
export const DEFAULT_SDK_DIR =
  basename(HERE) === "routes" ? join(HERE, "..", "..", "dist", "sdk") : join(HERE, "sdk");

/** The tarball in `dir` with the highest version, or undefined when there is none. */
export function findSdkTarball(dir: string): string | undefined {
  return newestMatching(dir, TARBALL);
}

/** The Python client's wheel in `dir` with the highest version, or undefined when there is none. */
export function findPythonWheel(dir: string): string | undefined {
  return newestMatching(dir, WHEEL);
}

function newestMatching(dir: string, pattern: RegExp): string | undefined {
  if (!existsSync(dir)) return undefined;
  const versions = readdirSync(dir).filter((name) => pattern.test(name));
  return versions.sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1);
}

function servedType(file: string): string | undefined {
  if (TARBALL.test(file)) return "application/gzip";
  if (WHEEL.test(file)) return "application/zip";
  return file === PYTHON_README ? "text/markdown; charset=utf-8" : undefined;
}

export function sdkTarball(ctx: PortalContext) {
  return async (request: FastifyRequest<{ Params: { file: string } }>, reply: FastifyReply) => {
    const { file } = request.params;
    const dir = ctx.settings.sdkDir ?? DEFAULT_SDK_DIR;
    const type = servedType(file);
    if (type === undefined || !existsSync(join(dir, file))) return sendPageError(ctx, reply, "not_found");
    if (file === PYTHON_README) return reply.type(type).send(createReadStream(join(dir, file)));
    return reply
      .type(type)
      .header("content-disposition", `attachment; filename="${file}"`)
      .send(createReadStream(join(dir, file)));
  };
}
