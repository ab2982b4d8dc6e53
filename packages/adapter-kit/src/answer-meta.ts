/**
 * What a reply says of the upstream answers it was built from (contracts' `adapterReplyMetaSchema`):
 * when the oldest was produced (the caller's `Age`), how long the reply may be served again (the
 * shortest bound of them all, none if any may not be), and the costliest way one was had
 * (`upstream` over `joined` over `cache`: the gateway's path metrics).
 */
import { type AdapterReplyMeta, decodeAdapterReply, encodeAdapterReply } from "@rda/contracts";
import type { FetchSource } from "@rda/upstream-client";

export interface AnswerSeen {
  readonly fetchedAtMs: number;
  readonly source: FetchSource;
  /** How long after `fetchedAtMs` it may be served again; undefined: never. */
  readonly maxAgeS: number | undefined;
}

export interface AnswersMeta {
  readonly fetchedAtMs: number;
  readonly maxAgeS: number | undefined;
  readonly source: FetchSource;
}

const COST: Readonly<Record<FetchSource, number>> = { cache: 0, joined: 1, upstream: 2 };

export function collectAnswers(): { note(answer: AnswerSeen): void; meta(): AnswersMeta | undefined } {
  let meta: AnswersMeta | undefined;
  let servable = true;
  return {
    note(answer) {
      servable &&= answer.maxAgeS !== undefined;
      if (meta === undefined) {
        meta = answer;
        return;
      }
      const bounds = [meta.maxAgeS, answer.maxAgeS].filter((bound) => bound !== undefined);
      meta = {
        fetchedAtMs: Math.min(meta.fetchedAtMs, answer.fetchedAtMs),
        maxAgeS: bounds.length > 0 ? Math.min(...bounds) : undefined,
        source: COST[answer.source] > COST[meta.source] ? answer.source : meta.source,
      };
    },
    meta: () => meta && { ...meta, maxAgeS: servable ? meta.maxAgeS : undefined },
  };
}

export interface StampedReply {
  readonly frame: Uint8Array;
  /** Epoch ms until which this ok reply may be served again; undefined: not at all. */
  readonly servableUntilMs: number | undefined;
}

/**
 * An ok reply with its answers' meta in its head; other replies, and replies built from no upstream
 * answer, as they are. Only the one-line head is rewritten; the data bytes stay.
 */
export function stampAnswerMeta(frame: Uint8Array, answers: AnswersMeta | undefined): StampedReply {
  const decoded = decodeAdapterReply(frame);
  if (answers === undefined || !decoded.ok || decoded.value.meta.outcome !== "ok")
    return { frame, servableUntilMs: undefined };
  const fetchedAtMs = Math.floor(answers.fetchedAtMs);
  const meta: AdapterReplyMeta = {
    ...decoded.value.meta,
    fetched_at_ms: fetchedAtMs,
    max_age_s: answers.maxAgeS,
    source: answers.source,
  };
  const servableUntilMs = answers.maxAgeS === undefined ? undefined : fetchedAtMs + answers.maxAgeS * 1000;
  return { frame: encodeAdapterReply(meta, decoded.value.data ?? new Uint8Array()), servableUntilMs };
}
