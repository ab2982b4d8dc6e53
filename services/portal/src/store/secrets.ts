/**
 * Secrets the portal hands out (sign-in tokens, session ids) and the one way they are stored: as
 * their SHA-256, so a copy of Redis lets nobody sign in. Email addresses are indexed by their hash
 * too, which keeps arbitrary text out of key names.
 */
import { randomBytes, randomInt } from "node:crypto";
import { sha256Hex } from "@rda/service-kit";

const BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz";

/** 256 random bits, URL-safe: a sign-in token or a session id. */
export function newSecretToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Tokens as they arrive in URLs, forms and cookies are checked for this shape before any lookup. */
export const SECRET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Stored form of a secret or an address: service-kit's one SHA-256 helper, under the portal's name. */
export const sha256 = sha256Hex;

/** A public handle matching ACCOUNT_ID_PATTERN: `acct_` and 16 base36 characters (about 82 bits). */
export function newAccountId(): string {
  let id = "acct_";
  for (let i = 0; i < 16; i++) id += BASE36[randomInt(36)];
  return id;
}
