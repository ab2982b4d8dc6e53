/**
 * The one convention for a request-reply call between services over NATS: a table of entries, one
 * per subject, each pairing the schema its request is decoded with, the schema its reply is decoded
 * with, and whether a caller may send it again after a timeout. The serving service decodes with the
 * entry and every caller asks through it (service-kit's `rpcCaller`), so a request and its reply
 * cannot be paired differently on the two sides. Billing (BILLING_RPC), monitors (MONITORS_RPC) and
 * exports (EXPORTS_RPC) each have one table, and one subject per entry (`buildSubjects`).
 *
 * Safe to retry: sending the call twice has the effect of sending it once (reads, and writes keyed
 * by a request id, or setting a value). Not safe: a call that makes something new each time.
 */
import type { z } from "zod";

export interface RpcEntry<Request extends z.ZodType = z.ZodType, Reply extends z.ZodType = z.ZodType> {
  readonly request: Request;
  readonly reply: Reply;
  readonly safeToRetry: boolean;
}

export type RpcTable = Readonly<Record<string, RpcEntry>>;

export const rpc = <Request extends z.ZodType, Reply extends z.ZodType>(
  request: Request,
  reply: Reply,
  safeToRetry: boolean,
): RpcEntry<Request, Reply> => ({ request, reply, safeToRetry });

/** What a caller sends (defaults not yet applied). */
export type RpcRequest<T extends RpcTable, N extends keyof T> = z.input<T[N]["request"]>;
/** What the serving handler receives, decoded. */
export type RpcDecoded<T extends RpcTable, N extends keyof T> = z.output<T[N]["request"]>;
/** What the serving handler returns, and the caller receives decoded. */
export type RpcReply<T extends RpcTable, N extends keyof T> = z.output<T[N]["reply"]>;

/**
 * An entry's request schema, typed by the entry's name, for a server that serves every entry by one
 * generic function: TypeScript cannot narrow a table's entry by a generic name, and the table pairs them.
 */
export function requestSchemaOf<T extends RpcTable, N extends keyof T & string>(
  table: T,
  name: N,
): z.ZodType<RpcDecoded<T, N>, RpcRequest<T, N>> {
  return (table[name] as RpcEntry).request as z.ZodType<RpcDecoded<T, N>, RpcRequest<T, N>>;
}
