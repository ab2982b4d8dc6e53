/**
 * Stripe's webhook signature: `Stripe-Signature: t=<epoch seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<payload>" keyed with the whole `whsec_…` secret>`. The receiver recomputes it over the raw
 * bytes it got, and refuses a timestamp outside its tolerance (300 s by default), so a captured
 * delivery cannot be replayed later.
 */
import { createHmac } from "node:crypto";

export function signatureHeader(payload: string, secret: string, timestamp: number): string {
  const v1 = createHmac("sha256", secret).update(`${timestamp}.${payload}`, "utf8").digest("hex");
  return `t=${timestamp},v1=${v1}`;
}
