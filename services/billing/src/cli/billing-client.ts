/**
 * The CLI's way to billing: one NATS request per command, the reply validated with its contract
 * schema. Every way of not getting an answer becomes one "unavailable" result with a hint.
 */
import { billingFailureSchema } from "@rda/contracts";
import { type NatsConnection, requestJson } from "@rda/service-kit";
import { z } from "zod";

export const START_HINT = "start the stack with pnpm start";

export type BillingAnswer<T> = { ok: true; value: T } | { ok: false; message: string };

export async function askBilling<T>(
  nats: NatsConnection,
  subject: string,
  payload: unknown,
  schema: z.ZodType<T>,
  timeoutMs = 10_000,
): Promise<BillingAnswer<T>> {
  const outcome = await requestJson(
    nats,
    subject,
    payload,
    z.union([billingFailureSchema, schema]),
    timeoutMs,
  );
  if (!outcome.ok) {
    const hint =
      outcome.failure === "no_responders" ? `billing is not running; ${START_HINT}` : outcome.message;
    return { ok: false, message: hint };
  }
  const value = outcome.value;
  if (isFailure(value)) return { ok: false, message: `billing is up but failing: ${value.message}` };
  return { ok: true, value: value as T };
}

function isFailure(value: unknown): value is z.infer<typeof billingFailureSchema> {
  return billingFailureSchema.safeParse(value).success;
}
