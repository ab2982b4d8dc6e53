/**
 * Email addresses as the portal treats them: one account per address, whatever its letter case, so
 * an address is trimmed and lower-cased before it is looked up, stored or written to.
 */
import { err, ok, type Result } from "@rda/contracts";
import { z } from "zod";

/** RFC 5321 limits a forward path to 254 characters. */
const addressSchema = z.email().max(254);

export function normaliseEmail(raw: unknown): Result<string, "invalid"> {
  if (typeof raw !== "string") return err("invalid");
  const address = raw.trim().toLowerCase();
  return addressSchema.safeParse(address).success ? ok(address) : err("invalid");
}
