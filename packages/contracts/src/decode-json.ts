/**
 * Decoding JSON that crossed a boundary (a NATS message, a request body) with the schema of what it
 * must be. One place, so every receiver distrusts the wire the same way and says why in one line.
 */
import type { z } from "zod";
import { err, ok, type Result } from "./result.ts";

const decoder = new TextDecoder();

export function decodeJson<S extends z.ZodType>(
  payload: Uint8Array | string,
  schema: S,
): Result<z.output<S>, string> {
  let json: unknown;
  try {
    json = JSON.parse(typeof payload === "string" ? payload : decoder.decode(payload));
  } catch {
    return err("not JSON");
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return ok(parsed.data);
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return err(`${where}${issue?.message ?? "does not match its schema"}`);
}
