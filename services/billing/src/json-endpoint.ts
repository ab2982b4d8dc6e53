/**
 * Turns a typed operation into a NATS request handler: the request is decoded with its contract
 * schema (distrust the wire), the result is sent as JSON. A request that does not decode — malformed,
 * or an amount out of its bounds — is refused (service error 400 saying why), logged and counted.
 * Expected outcomes are values in the reply. When the ledger store fails or is too slow the reply is
 * a service error 503 at once, so the gateway answers 503 instead of waiting out its own timeout;
 * anything else thrown is a bug: a service error 500, logged as an error and counted.
 */
import {
  BILLING_RPC,
  type BillingRpcDecoded,
  type BillingRpcName,
  decodeJson,
  type Subjects,
} from "@rda/contracts";
import { isStoreFailure, type Logger, type RequestHandler, ServiceError } from "@rda/service-kit";
import type { z } from "zod";

export interface EndpointOptions {
  readonly logger: Logger;
  /** Bound on the store's answer; unset for slow operator commands such as `ledger verify`. */
  readonly timeoutMs?: number;
  /** Counts a request refused because it does not match its contract, by subject. */
  readonly onRefused?: (subject: string) => void;
  /** Counts a request that failed for a reason other than the store (a bug), by subject. */
  readonly onBug?: (subject: string) => void;
}

/** The store gave no answer within the endpoint's bound. */
class StoreTimeout extends Error {}

export function jsonEndpoint<S extends z.ZodType>(
  schema: S,
  run: (request: z.output<S>) => Promise<unknown>,
  options: EndpointOptions,
): RequestHandler {
  return async (payload, message) => {
    const request = decodeJson(payload, schema);
    if (!request.ok) {
      options.onRefused?.(message.subject);
      options.logger.warn({ subject: message.subject, problem: request.error }, "request refused");
      throw new ServiceError(400, `invalid request: ${request.error}`);
    }
    try {
      return JSON.stringify(await withTimeout(run(request.value), options.timeoutMs));
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      if (error instanceof StoreTimeout || isStoreFailure(error)) {
        options.logger.warn({ subject: message.subject, err: String(error) }, "ledger store failed");
        throw new ServiceError(503, `billing cannot reach its ledger store: ${String(error)}`);
      }
      options.onBug?.(message.subject);
      options.logger.error({ subject: message.subject, err: error }, "billing operation failed unexpectedly");
      throw new ServiceError(500, "billing failed unexpectedly");
    }
  };
}

/** One entry of BILLING_RPC served: its subject, its request decoded with the entry's schema. */
export function billingEndpoint<N extends BillingRpcName>(
  subjects: Subjects,
  name: N,
  run: (request: BillingRpcDecoded<N>) => Promise<z.input<(typeof BILLING_RPC)[N]["reply"]>>,
  options: EndpointOptions,
): { subject: string; handler: RequestHandler } {
  // TypeScript cannot narrow an entry of the table by a generic name; the table pairs them.
  const schema = BILLING_RPC[name].request as unknown as z.ZodType<BillingRpcDecoded<N>>;
  return { subject: subjects.billing[name], handler: jsonEndpoint(schema, run, options) };
}

async function withTimeout<T>(work: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  if (timeoutMs === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeout(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
