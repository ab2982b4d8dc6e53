/**
 * The parameters of `POST /v1/checkout/sessions` the simulator understands, form-encoded with
 * Stripe's nested keys (`line_items[0][price_data][unit_amount]=2500`) and parsed by qs. Anything
 * else is refused as Stripe refuses it: an unknown parameter, a missing one, a malformed one, each a
 * 400 naming the parameter in bracket form. So a request the portal sends here that Stripe would
 * refuse is refused here too.
 */
import { z } from "zod";
import type { StripeErrorBody } from "./stripe-errors.ts";

const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: "Invalid integer" })
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((value) => Object.keys(value).length <= 50, { error: "at most 50 keys" });

const lineItem = z.strictObject({
  quantity: integer(1, 999_999),
  price_data: z.strictObject({
    currency: z.string().regex(/^[a-z]{3}$/),
    /** Stripe's largest amount for USD: 999,999.99. */
    unit_amount: integer(0, 99_999_999),
    product_data: z.strictObject({
      name: z.string().min(1).max(250),
      description: z.string().max(500).optional(),
    }),
  }),
});

export const createSessionParamsSchema = z
  .strictObject({
    mode: z.literal("payment", { error: "This simulator supports mode=payment only." }),
    line_items: z.array(lineItem).min(1).max(100),
    success_url: z.url().max(5_000).optional(),
    cancel_url: z.url().max(5_000).optional(),
    client_reference_id: z
      .string()
      .max(200)
      .regex(/^[A-Za-z0-9_-]+$/)
      .optional(),
    customer_email: z.email().optional(),
    metadata: metadata.optional(),
    payment_intent_data: z
      .strictObject({ metadata: metadata.optional(), description: z.string().max(1_000).optional() })
      .optional(),
    payment_method_types: z.array(z.literal("card")).optional(),
    submit_type: z.enum(["auto", "book", "donate", "pay", "subscribe"]).optional(),
    expand: z.array(z.string()).optional(),
  })
  .superRefine((params, context) => {
    const currencies = new Set(params.line_items.map((item) => item.price_data.currency));
    if (currencies.size > 1)
      context.addIssue({
        code: "custom",
        path: ["line_items"],
        message: "All line items must share one currency.",
      });
    const total = params.line_items.reduce((sum, i) => sum + i.quantity * i.price_data.unit_amount, 0);
    if (total < 50 || total > 99_999_999)
      context.addIssue({
        code: "custom",
        path: ["line_items"],
        message: "The Checkout Session's total amount must be at least $0.50 usd and at most $999,999.99.",
      });
  });

export type CreateSessionParams = z.output<typeof createSessionParamsSchema>;

/** `expand[]=latest_charge` on a PaymentIntent: the only expansion the simulator serves. */
export const retrieveParamsSchema = z.strictObject({ expand: z.array(z.enum(["latest_charge"])).optional() });
export const retrieveSessionParamsSchema = z.strictObject({});

/** The first problem, as Stripe words it, with the parameter in bracket form. */
export function stripeParamError(error: z.ZodError): StripeErrorBody {
  const issue = error.issues[0]!;
  const path = [...issue.path];
  if (issue.code === "unrecognized_keys") {
    const param = bracketed([...path, issue.keys[0]!]);
    return {
      type: "invalid_request_error",
      code: "parameter_unknown",
      param,
      message: `Received unknown parameter: ${param}`,
    };
  }
  const param = bracketed(path);
  if (issue.code === "invalid_type" && issue.input === undefined)
    return {
      type: "invalid_request_error",
      code: "parameter_missing",
      param,
      message: `Missing required param: ${param}.`,
    };
  const code = issue.message === "Invalid integer" ? "parameter_invalid_integer" : "parameter_invalid";
  return { type: "invalid_request_error", code, param, message: `Invalid ${param}: ${issue.message}` };
}

function bracketed(path: PropertyKey[]): string {
  const [head, ...rest] = path.map(String);
  return `${head ?? ""}${rest.map((part) => `[${part}]`).join("")}`;
}
