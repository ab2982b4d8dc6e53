/**
 * The seam between an adapter and NATS: parse the request (distrust the wire: the params schemas are
 * idempotent, so the gateway's normalised params parse again), run the operation, frame the reply.
 * Expected failures travel as reply outcomes; only a bug throws.
 */
import { type AdapterReplyMeta, adapterRequestSchema, encodeAdapterReply } from "@rda/contracts";
import type { Logger, RequestHandler } from "@rda/service-kit";
import type { z } from "zod";
import type { UpstreamFailure } from "./types.ts";

const decoder = new TextDecoder();

export type OperationRunner<P> = (params: P, requestId: string) => Promise<Uint8Array>;

export function createAdapterHandler<S extends z.ZodType>(
  paramsSchema: S,
  logger: Logger,
  run: OperationRunner<z.output<S>>,
): RequestHandler {
  const requestSchema = adapterRequestSchema(paramsSchema);
  return async (payload) => {
    const parsed = requestSchema.safeParse(parseJson(payload));
    if (!parsed.success) {
      logger.warn({ issues: parsed.error.issues.slice(0, 3) }, "adapter request refused");
      return badRequestReply(describeIssues(parsed.error.issues));
    }
    const request = parsed.data as { request_id: string; params: z.output<S> };
    return run(request.params, request.request_id);
  };
}

/** A 400 message naming the parameter, e.g. "limit: must be an integer from 1 to 100". */
function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const issue = issues[0];
  if (!issue) return "invalid request";
  const path = issue.path.filter((part) => part !== "params").join(".");
  return path === "" ? issue.message : `${path}: ${issue.message}`;
}

function parseJson(payload: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(payload));
  } catch {
    return undefined;
  }
}

export function okReply(dataJson: string, list?: { cursor: number | null; has_more: boolean }): Uint8Array {
  const meta: AdapterReplyMeta = list ? { outcome: "ok", ...list } : { outcome: "ok" };
  return encodeAdapterReply(meta, dataJson);
}

export function badRequestReply(message: string): Uint8Array {
  return encodeAdapterReply({ outcome: "bad_request", message });
}

export function unavailableReply(message: string): Uint8Array {
  return encodeAdapterReply({ outcome: "unavailable", message });
}

/** Maps a classified upstream failure to the reply outcome the gateway turns into 400/429/502. */
export function failureReply(failure: UpstreamFailure): Uint8Array {
  if (failure.outcome === "rate_limited") {
    const { message, retry_after_seconds } = failure;
    return encodeAdapterReply({ outcome: "rate_limited", message, retry_after_seconds });
  }
  return encodeAdapterReply({ outcome: failure.outcome, message: failure.message });
}
