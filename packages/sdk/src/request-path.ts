/**
 * Builds an operation's path and query from its parameters. Path parameters are percent-encoded,
 * dots included, so a name such as `..` can never walk out of its segment; query parameters go
 * through URLSearchParams. Values are not validated here: the API is the one validator.
 */

export interface OperationRoute {
  readonly path: string;
  readonly pathParams: readonly string[];
}

export function buildRequestPath(prefix: string, route: OperationRoute, params: object): string {
  let path = route.path;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (route.pathParams.includes(name)) {
      path = path.replace(`{${name}}`, encodePathSegment(String(value)));
    } else {
      query.set(name, String(value));
    }
  }
  // A path parameter left out (only possible by bypassing the types) leaves an empty segment: 404.
  path = path.replace(/\{[a-z_]+\}/g, "");
  const search = query.toString();
  return `${prefix}${path}${search === "" ? "" : `?${search}`}`;
}

function encodePathSegment(value: string): string {
  return encodeURIComponent(value).replace(/\./g, "%2E");
}
