/**
 * The TypeScript SDK's tarball, so that it installs as its docs say before it is on a registry:
 * `npm install <portal>/sdk/rda-sdk-<version>.tgz`. `pnpm start` and `pnpm build` pack it into the
 * portal's SDK folder (scripts/pack-sdk.mjs); the portal serves the tarballs it finds there, and
 * names the one it found at start in the "first request" snippets.
 */
import { createReadStream, existsSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { sendPageError } from "../http/render.ts";

const TARBALL = /^rda-sdk-\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?\.tgz$/;

const HERE = dirname(fileURLToPath(import.meta.url));
/**
 * Where scripts/pack-sdk.mjs writes the tarball: `services/portal/dist/sdk`, seen from the sources
 * (src/routes/) or from the bundle (dist/main.mjs, which is this module once built).
 */
export const DEFAULT_SDK_DIR =
  basename(HERE) === "routes" ? join(HERE, "..", "..", "dist", "sdk") : join(HERE, "sdk");

/** The tarball in `dir` with the highest version, or undefined when there is none. */
export function findSdkTarball(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  const versions = readdirSync(dir).filter((name) => TARBALL.test(name));
  return versions.sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1);
}

export function sdkTarball(ctx: PortalContext) {
  return async (request: FastifyRequest<{ Params: { file: string } }>, reply: FastifyReply) => {
    const { file } = request.params;
    const dir = ctx.settings.sdkDir ?? DEFAULT_SDK_DIR;
    if (!TARBALL.test(file) || !existsSync(join(dir, file))) return sendPageError(ctx, reply, "not_found");
    return reply
      .type("application/gzip")
      .header("content-disposition", `attachment; filename="${file}"`)
      .send(createReadStream(join(dir, file)));
  };
}
