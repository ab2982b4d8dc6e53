/**
 * Turns a typed operation into a NATS request handler: the request is parsed with its contract schema
 * (distrust the wire), the result is sent as JSON, and when the ledger store fails or is too slow the
 * reply is `{outcome: "failure", message}` (billingFailureSchema) at once, so the gateway answers 503
 * instead of waiting out its own timeout.
 */
import type { billingFailureSchema } from "@rda/contracts";
import type { Logger, RequestHandler } from "@rda/service-kit";
import type { z } from "zod";

type BillingFailure = z.infer<typeof billingFailureSchema>;

export interface EndpointOptions {
  readonly logger: Logger;
  /** Bound on the store's answer; unset for slow operator commands such as `ledger verify`. */
  readonly timeoutMs?: number;
}

export function jsonEndpoint<S extends z.ZodType>(
  schema: S,
  run: (request: z.output<S>) => Promise<unknown>,
  options: EndpointOptions,
): RequestHandler {
  return async (payload, message) => {
    const parsed = parseJson(schema, payload);
    if (!parsed.ok) return reply(failure(`invalid request: ${parsed.problem}`));
    try {
      return reply(await withTimeout(run(parsed.value), options.timeoutMs));
    } catch (error) {
      options.logger.warn({ subject: message.subject, err: String(error) }, "billing operation failed");
      return reply(failure(`billing cannot reach its ledger store: ${String(error)}`));
    }
  };
}

function failure(message: string): BillingFailure {
  return { outcome: "failure", message };
}

function reply(value: unknown): string {
  return JSON.stringify(value);
}

type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

function parseJson<S extends z.ZodType>(schema: S, payload: Uint8Array): Parsed<z.output<S>> {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    return { ok: false, problem: "not JSON" };
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problem: parsed.error.message };
}

async function withTimeout<T>(work: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  if (timeoutMs === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
