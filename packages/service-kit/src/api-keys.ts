/**
 * The wire rules of API keys, used by every service that meets one (docs/api.md#authentication): a key
 * arrives as `x-api-key: K` or `Authorization: Bearer K` (equivalent; `x-api-key` wins when both are
 * sent), must have the key format before it goes anywhere (a lookup, a log line, a header of ours),
 * and is stored and looked up only as its SHA-256.
 */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { API_KEY_PATTERN, err, ok, type Result } from "@rda/contracts";

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

export type ApiKeyProblem = "missing" | "malformed";

export function readApiKey(headers: IncomingHttpHeaders): Result<string, ApiKeyProblem> {
  const candidate = presentedKey(headers);
  if (candidate === undefined) return err("missing");
  return API_KEY_PATTERN.test(candidate) ? ok(candidate) : err("malformed");
}

/** The credential as sent, before any format check; undefined when neither header carries one. */
export function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const direct = headers["x-api-key"];
  if (typeof direct === "string" && direct.trim() !== "") return direct.trim();
  const authorization = headers.authorization;
  return typeof authorization === "string" ? BEARER.exec(authorization)?.[1] : undefined;
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/** The SHA-256 of a text, in lowercase hex: how secrets and other keyed text are stored. */
export function sha256Hex(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("hex");
}
