/**
 * One admitted request's debit, from admission to its end (docs/api.md#charging). The debit is
 * pending until the response has been written to the client's socket; then it is settled. An
 * idempotent request's response is recorded for its retries just before it is written, so a retry
 * sent the moment the answer arrived gets that answer; should the write fail, the record is
 * withdrawn with the refund. A request that fails after the debit is refunded before its answer is
 * sent, and the answer says so; a client that hangs up before its answer was written is refunded
 * too. Each charge ends exactly once.
 */
import { ERRORS } from "@rda/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Failure, GatewayContext } from "../core/context.ts";
import type { Claim, StoredResponse } from "../core/idempotency.ts";
import type { KeyInfo } from "../core/key-directory.ts";

export interface Charge {
  /** The answer about to be written: recorded for the idempotency claim before it is written. */
  answering(response: StoredResponse): Promise<void>;
  /** The request failed after the debit: the credit goes back now when its catalog entry says so. */
  fail(failure: Failure): Promise<Failure>;
}

export function openCharge(
  ctx: GatewayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  key: KeyInfo,
  debit: { credits: number; balance: number; claim: Claim | undefined },
): Charge {
  let ended = false;
  let answered = false;
  const refundMessage = (reason: string) => ({ key_id: key.id, request_id: request.id, reason });
  const keepClaim = (work: Promise<void> | undefined) =>
    void work?.catch((error: unknown) =>
      request.log.warn({ err: String(error) }, "idempotency store failed"),
    );
  reply.raw.once("close", () => {
    if (ended) return;
    ended = true;
    if (reply.raw.writableFinished && answered) {
      ctx.settlement.settle(key.id, request.id);
    } else {
      void ctx.refunds.refundNow(refundMessage("client_closed"));
      keepClaim(debit.claim?.release());
    }
  });
  return {
    async answering(response) {
      answered = true;
      await debit.claim?.complete(response).catch((error: unknown) => {
        request.log.warn({ err: String(error) }, "idempotency store failed");
      });
    },
    async fail(failure) {
      if (!ERRORS[failure.code].refunded) return failure;
      ended = true;
      keepClaim(debit.claim?.release());
      const balance = await ctx.refunds.refundNow(refundMessage(failure.code));
      reply.header("x-credits-used", String(debit.credits));
      reply.header("x-credits-refunded", String(debit.credits));
      reply.header("x-credits-remaining", String(balance ?? debit.balance + debit.credits));
      return { ...failure, refunded: true };
    },
  };
}
