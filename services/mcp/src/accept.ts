/**
 * The Streamable HTTP transport asks clients to accept both JSON and an event stream, because a
 * server may answer either way. This server only ever answers JSON, so, as the transport spec lets a
 * server be lenient, any Accept that admits JSON is enough (a missing Accept admits everything).
 */
export function acceptsJson(header: string | undefined): boolean {
  if (header === undefined || header.trim() === "") return true;
  return header.split(",").some((range) => {
    const [type = "", ...parameters] = range.split(";").map((part) => part.trim().toLowerCase());
    const weight = parameters.find((parameter) => parameter.startsWith("q="));
    if (weight !== undefined && Number(weight.slice(2)) === 0) return false;
    return type === "application/json" || type === "application/*" || type === "*/*";
  });
}

/** What the SDK's transport is told the client accepts, once we have checked it takes JSON. */
export const TRANSPORT_ACCEPT = "application/json, text/event-stream";
