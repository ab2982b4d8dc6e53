/**
 * Turns an HTTP request's raw query and path parameters into an operation's typed parameters,
 * with one clear message naming the parameter on the first problem found.
 */
import type { z } from "zod";
import type { OperationContract } from "./operations.ts";
import { err, ok, type Result } from "./result.ts";

type RawValues = Record<string, string | string[] | undefined>;

export function parseHttpParams<T>(
  operation: OperationContract,
  query: RawValues,
  path: RawValues = {},
): Result<T> {
  // No prototype: `__proto__` is then a key like any other, so the schema's strictness names it as
  // unknown instead of the assignment silently vanishing into the object's prototype.
  const merged: Record<string, unknown> = Object.create(null);
  const ignored = ignoredParams(operation, query);
  for (const [name, value] of Object.entries(query)) {
    if (ignored.has(name)) continue;
    if (Array.isArray(value)) return err(`parameter '${name}' must be given once`);
    if (value === undefined) continue;
    merged[name] = operation.integerParams.includes(name) ? integerOrText(value) : value;
  }
  for (const name of operation.pathParams) merged[name] = path[name];
  const parsed = operation.params.safeParse(merged);
  return parsed.success ? ok(parsed.data as T) : err(describeIssue(parsed.error));
}

function ignoredParams(operation: OperationContract, query: RawValues): ReadonlySet<string> {
  const batch = operation.batchMode;
  return batch !== undefined && query[batch.trigger] !== undefined ? new Set(batch.ignores) : new Set();
}

/** Keeps non-numeric text as text so the schema answers "must be an integer" instead of NaN noise. */
function integerOrText(value: string): number | string {
  return /^-?\d{1,15}$/.test(value.trim()) ? Number(value) : value;
}

/** One sentence about the first issue, naming the parameter it concerns. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid parameters";
  if (issue.code === "unrecognized_keys") {
    const names = issue.keys.map((key) => `'${key.slice(0, 40)}'`).join(", ");
    return `unknown parameter ${names}`;
  }
  const name = issue.path.map(String).join(".");
  return name === "" ? issue.message : `parameter '${name}' ${issue.message}`;
}

/**
 * A query string against a route's declared parameters (a strict object schema): a parameter given
 * twice, unknown or invalid is refused with one sentence naming it, as on the data routes.
 */
export function parseQuery<T>(schema: z.ZodType<T>, query: RawValues): Result<T> {
  const merged: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) return err(`parameter '${name.slice(0, 40)}' must be given once`);
    if (value !== undefined) merged[name] = value;
  }
  const parsed = schema.safeParse(merged);
  return parsed.success ? ok(parsed.data) : err(describeIssue(parsed.error));
}
