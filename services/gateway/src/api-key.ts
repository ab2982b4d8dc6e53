/**
 * Reading the API key from a request (spec §5.1): `x-api-key: K` or `Authorization: Bearer K`, equivalent.
 * The format is checked before any lookup, so junk never reaches billing, a Redis key or a log line.
 */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { API_KEY_PATTERN } from "@rda/contracts";
import { fail, type Step, succeed } from "./http/failure.ts";

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

export function readApiKey(headers: IncomingHttpHeaders): Step<string> {
  const fromHeader = headers["x-api-key"];
  const authorization = headers.authorization;
  const candidate =
    typeof fromHeader === "string" && fromHeader !== ""
      ? fromHeader.trim()
      : typeof authorization === "string"
        ? BEARER.exec(authorization)?.[1]
        : undefined;
  if (candidate === undefined) return fail("missing_api_key");
  if (!API_KEY_PATTERN.test(candidate)) return fail("invalid_api_key");
  return succeed(candidate);
}

/** Billing stores only the sha256 of a key; the gateway looks keys up by the same hash. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}
