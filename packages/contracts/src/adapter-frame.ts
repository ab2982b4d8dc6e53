/**
 * The adapter reply frame: one line of JSON metadata, a newline, then the data as JSON bytes.
 * JSON.stringify never emits a raw newline, so the first newline splits the frame; the gateway
 * splices the data bytes into its envelope without parsing or re-serialising them.
 */
import { type AdapterReplyMeta, adapterReplyMetaSchema } from "./messages.ts";

const NEWLINE = 0x0a;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeAdapterReply(meta: AdapterReplyMeta, dataJson?: string): Uint8Array {
  const head = JSON.stringify(meta);
  return encoder.encode(dataJson === undefined ? head : `${head}\n${dataJson}`);
}

export interface DecodedAdapterReply {
  meta: AdapterReplyMeta;
  /** The data as UTF-8 JSON bytes; present when meta.outcome is ok. */
  data?: Uint8Array;
}

/** Throws when the frame is malformed: a broken adapter is a failure, never data to bill for. */
export function decodeAdapterReply(frame: Uint8Array): DecodedAdapterReply {
  const split = frame.indexOf(NEWLINE);
  const headBytes = split === -1 ? frame : frame.subarray(0, split);
  const meta = adapterReplyMetaSchema.parse(JSON.parse(decoder.decode(headBytes)));
  if (meta.outcome !== "ok") return { meta };
  if (split === -1) throw new Error("adapter reply frame has no data");
  return { meta, data: frame.subarray(split + 1) };
}
