/**
 * API key secrets and ids. The secret carries 256 random bits behind the recognisable `rdk_` prefix
 * (so leaked keys are easy to scan for); only its SHA-256 (hashApiKey) is stored, and the secret is
 * shown once.
 */
import { randomBytes, randomInt } from "node:crypto";
import { API_KEY_PREFIX } from "@rda/contracts";

const BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz";

export function newSecret(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
}

/** A public handle: `key_` and 16 base36 characters (about 82 bits), matching KEY_ID_PATTERN. */
export function newKeyId(): string {
  let id = "key_";
  for (let i = 0; i < 16; i++) id += BASE36[randomInt(36)];
  return id;
}
