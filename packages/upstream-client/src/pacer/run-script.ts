/** A Lua script by its SHA, sent whole once when Redis does not know it (after a restart or a flush). */
import { createHash } from "node:crypto";
import type { Redis } from "@rda/service-kit";

const shas = new Map<string, string>();

export async function runScript(
  redis: Redis,
  source: string,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  let sha = shas.get(source);
  if (sha === undefined) {
    sha = createHash("sha1").update(source).digest("hex");
    shas.set(source, sha);
  }
  try {
    return await redis.evalsha(sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!String(error).includes("NOSCRIPT")) throw error;
    return redis.eval(source, keys.length, ...keys, ...args);
  }
}
