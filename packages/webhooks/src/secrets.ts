/**
 * Webhook signing secrets: made here (`whsec_` and 24 random bytes in base64, the Standard Webhooks
 * form), shown to their owner once, and kept only sealed with AES-256-GCM under a key from the
 * environment, because signing needs them again (a hash would not do).
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/** A 32-byte key given as base64 or hex (64 hex digits); refused otherwise. */
export function sealingKeyFrom(text: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, "hex") : Buffer.from(text, "base64");
  if (key.length !== 32) throw new Error("the sealing key must be 32 bytes, as base64 or 64 hex digits");
  return key;
}

/** `v1.<iv>.<tag>.<ciphertext>`, each base64url. */
export function sealSecret(key: Buffer, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), sealed]
    .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
    .join(".");
}

export function openSecret(key: Buffer, sealed: string): string {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("not a sealed secret");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}
