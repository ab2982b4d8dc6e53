/**
 * The one way a service runs a Lua script on Redis: by its SHA (EVALSHA), loading the source when
 * Redis does not know it (after a restart or a SCRIPT FLUSH). A script is one atomic step: what it
 * changes lands together or not at all. `runMany` sends many calls of one script in one round trip.
 */
import { createHash } from "node:crypto";
import { err, ok, type Result } from "@rda/contracts";
import type { Redis } from "ioredis";
import { traced } from "./tracing.ts";

export type LuaArg = string | number | Buffer;

/** One call of a script: its KEYS and its ARGV. */
export interface LuaCall {
  readonly keys: readonly string[];
  readonly args: readonly LuaArg[];
}

export interface LuaScript {
  readonly sha: string;
  readonly source: string;
  run(redis: Redis, keys: readonly string[], args: readonly LuaArg[]): Promise<unknown>;
  /** As `run`, with every bulk string in the reply as a Buffer: for scripts that return stored bytes. */
  runForBytes(redis: Redis, keys: readonly string[], args: readonly LuaArg[]): Promise<unknown>;
  /**
   * Runs every call in one pipelined round trip and returns each call's reply, or the error Redis
   * answered it with, in order; the promise rejects only when Redis could not be asked at all. When
   * Redis lost the script (a restart), NOSCRIPT refused every call unrun: it is loaded and the calls
   * are sent once more.
   */
  runMany(redis: Redis, calls: readonly LuaCall[]): Promise<Result<unknown, Error>[]>;
}

const isNoScript = (error: unknown) => String(error).includes("NOSCRIPT");

export function luaScript(source: string): LuaScript {
  const sha = createHash("sha1").update(source).digest("hex");
  const span = { "db.system": "redis", "db.operation": "EVALSHA", "rda.script": sha.slice(0, 12) };
  const sendAll = async (redis: Redis, calls: readonly LuaCall[]) => {
    const pipeline = redis.pipeline();
    for (const { keys, args } of calls) pipeline.evalsha(sha, keys.length, ...keys, ...args);
    return (await pipeline.exec()) ?? [];
  };
  return {
    sha,
    source,
    run(redis, keys, args) {
      return traced("lua script", span, async () => {
        try {
          return await redis.evalsha(sha, keys.length, ...keys, ...args);
        } catch (error) {
          if (!isNoScript(error)) throw error;
          return redis.eval(source, keys.length, ...keys, ...args);
        }
      });
    },
    runForBytes(redis, keys, args) {
      return traced("lua script", span, async () => {
        try {
          return await redis.callBuffer("EVALSHA", sha, keys.length, ...keys, ...args);
        } catch (error) {
          if (!isNoScript(error)) throw error;
          return redis.callBuffer("EVAL", source, keys.length, ...keys, ...args);
        }
      });
    },
    runMany(redis, calls) {
      return traced("lua script batch", { ...span, "rda.calls": calls.length }, async () => {
        let results = await sendAll(redis, calls);
        if (results.some(([error]) => isNoScript(error))) {
          await redis.script("LOAD", source);
          results = await sendAll(redis, calls);
        }
        return results.map(([error, value]) => (error ? err(error) : ok(value)));
      });
    },
  };
}

/** Loads scripts ahead of their first call, saving those calls a round trip. */
export async function preloadScripts(redis: Redis, scripts: readonly LuaScript[]): Promise<void> {
  await Promise.all(scripts.map((script) => redis.script("LOAD", script.source)));
}
