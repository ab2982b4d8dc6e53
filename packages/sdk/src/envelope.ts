/**
 * A light check that a 200 is the documented envelope, `{data, _service}` with the credit figures
 * (and cursor and has_more on list-style operations). The rows themselves are not checked: upstream
 * fields pass through as sent, and a full schema check would need a validator at run time.
 */

type Meta = "list" | "credits";

export function isEnvelope(meta: Meta, body: unknown): boolean {
  if (!isObject(body) || !("data" in body) || !isObject(body._service)) return false;
  const service = body._service;
  const credits = isCount(service.credits_used) && isCount(service.credits_remaining);
  if (meta === "credits") return credits;
  const cursor = service.cursor === null || Number.isInteger(service.cursor);
  return credits && cursor && typeof service.has_more === "boolean" && Array.isArray(body.data);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 0;
}
