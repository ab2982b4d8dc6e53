/**
 * Sealing what must be used again but may never be kept in the clear (a webhook's signing secret,
 * a secret on its way to the page that shows it once, an answer kept for an `Idempotency-Key`
 * replay that may carry a new secret): AES-256-GCM with a fresh 12-byte IV, so a copy of the store
 * reveals nothing and a sealed value changed in the store is refused rather than opened.
 *
 * A key comes from the environment (`sealingKeyFrom`), or is derived from something only the caller
 * holds and the store never keeps (`keyFromCallerSecrets`: a session id whose hash alone is stored,
 * an Idempotency-Key and API key whose hashes alone are stored).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A 32-byte key given as base64 or hex (64 hex digits); refused otherwise. */
export function sealingKeyFrom(text: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, "hex") : Buffer.from(text, "base64");
  if (key.length !== 32) throw new Error("the sealing key must be 32 bytes, as base64 or 64 hex digits");
  return key;
}

/**
 * A 32-byte key for one purpose from values the caller holds: SHA-256 over the purpose and the parts,
 * each ended by a NUL so no two lists of parts run together into the same input.
 */
export function keyFromCallerSecrets(purpose: string, ...parts: readonly string[]): Buffer {
  const hash = createHash("sha256").update(`${purpose}\0`);
  for (const part of parts) hash.update(`${part}\0`);
  return hash.digest();
}

/** The sealed bytes: IV, then the authentication tag, then the ciphertext. */
export function sealBytes(key: Buffer, plain: Uint8Array | string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** The plain bytes again; undefined for another key's seal, a changed one, or no seal at all. */
export function openBytes(key: Buffer, sealed: Uint8Array): Buffer | undefined {
  if (sealed.length < IV_BYTES + TAG_BYTES) return undefined;
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}

/** A sealed value as text: its IV, tag and ciphertext, each base64url, joined by dots. */
export function sealedText(sealed: Buffer): string {
  return [
    sealed.subarray(0, IV_BYTES),
    sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES),
    sealed.subarray(IV_BYTES + TAG_BYTES),
  ]
    .map((part) => part.toString("base64url"))
    .join(".");
}

/** The sealed bytes of `sealedText`'s form; undefined when the text is not of that form. */
export function sealedFromText(text: string): Buffer | undefined {
  const parts = text.split(".");
  if (parts.length !== 3) return undefined;
  return Buffer.concat(parts.map((part) => Buffer.from(part, "base64url")));
}
