/**
 * The adapter reply frame: one line of JSON metadata, a newline, then the data as JSON bytes.
 * JSON.stringify never emits a raw newline, so the first newline splits the frame; the gateway
 * splices the data bytes into its envelope without parsing or re-serialising them.
 */

import { type AdapterReplyMeta, adapterReplyMetaSchema } from "./adapter-messages.ts";
import { decodeJson, err, ok, type Result } from "./result.ts";

const NEWLINE = 0x0a;
const encoder = new TextEncoder();

/** `data` is the data's JSON, as text or as UTF-8 bytes already encoded (forwarded as they are). */
export function encodeAdapterReply(meta: AdapterReplyMeta, data?: string | Uint8Array): Uint8Array {
  const head = JSON.stringify(meta);
  if (data === undefined) return encoder.encode(head);
  if (typeof data === "string") return encoder.encode(`${head}\n${data}`);
  const headBytes = encoder.encode(head);
  const frame = new Uint8Array(headBytes.length + 1 + data.length);
  frame.set(headBytes);
  frame[headBytes.length] = NEWLINE;
  frame.set(data, headBytes.length + 1);
  return frame;
}

export interface DecodedAdapterReply {
  meta: AdapterReplyMeta;
  /** The data as UTF-8 JSON bytes; present when meta.outcome is ok. */
  data?: Uint8Array;
}

/** A malformed frame is an error: a broken adapter is a failure, never data to bill for. */
export function decodeAdapterReply(frame: Uint8Array): Result<DecodedAdapterReply> {
  const split = frame.indexOf(NEWLINE);
  const head = decodeJson(split === -1 ? frame : frame.subarray(0, split), adapterReplyMetaSchema);
  if (!head.ok) return err(`adapter reply frame: ${head.error}`);
  const meta = head.value;
  if (meta.outcome !== "ok") return ok({ meta });
  if (split === -1) return err("adapter reply frame has no data");
  return ok({ meta, data: frame.subarray(split + 1) });
}
