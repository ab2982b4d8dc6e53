/**
 * Every error message the simulator sends, in one place. Bodies are always
 * `{"data": null, "error": <message>}` like the upstream's (docs/upstream.md#response-shapes).
 * The upstream's own words are used where known (busy, slow down).
 */
export const Messages = {
  invalidParam: (name: string, expected: string) => `Invalid '${name}' parameter: ${expected}`,
  missingParam: (name: string) => `Missing required parameter '${name}'`,
  duplicateParam: (name: string) => `Parameter '${name}' given more than once`,
  fieldNotSelectable: (field: string) => `Field '${field}' is not selectable`,
  tooMany: (name: string, max: number) => `Too many values in '${name}' (max ${max})`,
  needsFilter: (param: string, filters: string) => `'${param}' is only supported together with ${filters}`,
  notFound: "Not found",
  busy: "Timeout. Maybe slow down a bit",
  rateLimited: "Rate limit exceeded. Slow down a little",
  serverError: "Internal server error",
  badGateway: "Bad gateway: the database did not answer",
  unavailable: "Service temporarily unavailable",
} as const;
