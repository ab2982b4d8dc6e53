/**
 * The fields many of the messages that cross NATS share (adapter-messages.ts, billing-messages.ts,
 * key-messages.ts): ids and the rate limit, each checked as its pattern says.
 */
import { z } from "zod";
import { ACCOUNT_ID_PATTERN, KEY_HASH_PATTERN, KEY_ID_PATTERN } from "./api-keys.ts";

export const keyIdSchema = z.string().regex(KEY_ID_PATTERN);
export const keyHashSchema = z.string().regex(KEY_HASH_PATTERN);
export const accountIdSchema = z.string().regex(ACCOUNT_ID_PATTERN);
/**
 * An operation's id (`listPosts`, or an MCP tool's `search_posts`); usage is counted per operation.
 * No ':' (it is a field of the debit record and of the usage counters' names).
 */
export const OPERATION_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;
export const operationIdSchema = z.string().regex(OPERATION_ID_PATTERN);
/** Request ids come from callers (`x-request-id`), so they are bounded before use as Redis fields. */
export const requestIdSchema = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/);
export const rateLimitSchema = z.object({ qps: z.number().int().min(1), burst: z.number().int().min(1) });

/**
 * A request token: what the gateway sends with a command a client sent under `Idempotency-Key`
 * (docs/api.md#idempotency) to the service that carries it out (MONITORS_RPC, EXPORTS_RPC), a hash
 * of the key's id, the `Idempotency-Key` and the request, never the key itself. The service notes
 * it with what the command made or did, in the same step, and a command arriving again with the
 * same token is answered with that thing as it is now instead of being done again: an answer lost
 * or late leaves no second monitor, job or secret behind its retry. It travels in the payload, never
 * in a subject.
 */
export const requestTokenSchema = z.string().regex(/^[0-9a-f]{64}$/);
/** How long a service answers a request token with what it did: the gateway's replay window. */
export const REQUEST_TOKEN_SECONDS = 24 * 60 * 60;
