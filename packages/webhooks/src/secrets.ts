/**
 * Webhook signing secrets: made here (`whsec_` and 24 random bytes in base64, the Standard Webhooks
 * form), shown to their owner once, and kept only sealed (service-kit's sealing, AES-256-GCM) under
 * a key from the environment, because signing needs them again (a hash would not do).
 */
import { randomBytes } from "node:crypto";
import { openBytes, sealBytes, sealedFromText, sealedText } from "@rda/service-kit";

export { sealingKeyFrom } from "@rda/service-kit";

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/** `v1.<iv>.<tag>.<ciphertext>`, each base64url. */
export function sealSecret(key: Buffer, secret: string): string {
  return `v1.${sealedText(sealBytes(key, secret))}`;
}

export function openSecret(key: Buffer, sealed: string): string {
  const [version, ...rest] = sealed.split(".");
  const bytes = version === "v1" ? sealedFromText(rest.join(".")) : undefined;
  const opened = bytes && openBytes(key, bytes);
  if (opened === undefined) throw new Error("not a sealed secret, or sealed under another key");
  return opened.toString("utf8");
}
