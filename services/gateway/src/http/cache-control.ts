/**
 * The caller's bound on an answer's age, from its `Cache-Control` request header (docs/api.md#freshness):
 * `no-cache` (or `no-store`) asks for a fresh fetch, `max-age=N` for an answer at most N seconds old.
 * Several directives: the strictest wins. Unknown directives and malformed values are ignored, as
 * HTTP caches ignore them; no header: the data's own bound alone (undefined).
 */
export function requestedMaxAge(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  let bound: number | undefined;
  const tighten = (seconds: number) => {
    bound = bound === undefined ? seconds : Math.min(bound, seconds);
  };
  for (const directive of (Array.isArray(header) ? header.join(",") : header).split(",")) {
    const [rawName, rawValue] = directive.split("=", 2);
    const name = rawName?.trim().toLowerCase();
    if (name === "no-cache" || name === "no-store") tighten(0);
    if (name === "max-age" && rawValue !== undefined) {
      const value = rawValue.trim().replace(/^"(.*)"$/, "$1");
      if (/^\d{1,10}$/.test(value)) tighten(Number(value));
    }
  }
  return bound;
}

/** Whole seconds since the answer was produced upstream, never negative (clocks of replicas differ a little). */
export function ageSeconds(fetchedAtMs: number, nowMs = Date.now()): number {
  return Math.max(0, Math.floor((nowMs - fetchedAtMs) / 1000));
}
