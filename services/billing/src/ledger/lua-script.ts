/**
 * A Lua script run by its SHA (EVALSHA), falling back to EVAL when Redis does not know it yet (after a
 * restart or a SCRIPT FLUSH). Each script is one atomic step: a balance change and its journal entry
 * land together or not at all.
 */
import { createHash } from "node:crypto";
import { type Redis, traced } from "@rda/service-kit";

export interface LuaScript {
  readonly sha: string;
  readonly source: string;
  run(redis: Redis, keys: string[], args: (string | number)[]): Promise<unknown>;
}

export function luaScript(source: string): LuaScript {
  const sha = createHash("sha1").update(source).digest("hex");
  return {
    sha,
    source,
    run(redis, keys, args) {
      return traced(
        "ledger script",
        { "db.system": "redis", "db.operation": "EVALSHA", "rda.script": sha.slice(0, 12) },
        async () => {
          try {
            return await redis.evalsha(sha, keys.length, ...keys, ...args);
          } catch (error) {
            if (!String(error).includes("NOSCRIPT")) throw error;
            return redis.eval(source, keys.length, ...keys, ...args);
          }
        },
      );
    },
  };
}
