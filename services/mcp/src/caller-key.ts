/**
 * The caller's API key, from `x-api-key` or `Authorization: Bearer` (spec §5; the gateway forwards
 * both). Checked against the key format before it is copied into a header of our own request.
 */

import type { IncomingHttpHeaders } from "node:http";
import { API_KEY_PATTERN } from "@rda/contracts";

export type CallerKey = { ok: true; key: string } | { ok: false; reason: "missing" | "malformed" };

export function callerKey(headers: IncomingHttpHeaders): CallerKey {
  const raw = headerKey(headers);
  if (raw === undefined) return { ok: false, reason: "missing" };
  return API_KEY_PATTERN.test(raw) ? { ok: true, key: raw } : { ok: false, reason: "malformed" };
}

function headerKey(headers: IncomingHttpHeaders): string | undefined {
  const direct = headers["x-api-key"];
  if (typeof direct === "string" && direct.trim() !== "") return direct.trim();
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? "");
  return bearer?.[1];
}
