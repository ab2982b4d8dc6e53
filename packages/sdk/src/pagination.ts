/**
 * `for await` over a listing: each page is one call, and the next page's bound is the previous
 * page's cursor, as `before` when sorting newest first (the default) or `after` when sorting oldest
 * first. It stops when `has_more` is false. A page may hold fewer rows than `limit`, or none at all
 * with `q`, while `has_more` is true: the iterator keeps going. Failures are thrown as
 * `GatewayApiError`, after the client's retries.
 */
import { GatewayApiError } from "./errors.ts";
import type { Envelope, GatewayResult, OperationInput, PagedOperation, PageOptions } from "./types.ts";

type Call = <N extends PagedOperation>(
  operation: N,
  params: OperationInput<N>,
  options?: PageOptions,
) => Promise<GatewayResult<Envelope<N>>>;

export async function* pagesOf<N extends PagedOperation>(
  call: Call,
  operation: N,
  params: OperationInput<N>,
  options: PageOptions = {},
): AsyncGenerator<Envelope<N>, void, undefined> {
  const bound = params.sort === "asc" ? "after" : "before";
  let next: OperationInput<N> = params;
  for (let page = 1; ; page++) {
    // A fresh idempotency key per page: each page is a different request.
    const result = await call(operation, next, { ...options, idempotencyKey: undefined });
    if (!result.ok) throw new GatewayApiError(result.error);
    yield result.value;
    const { has_more, cursor } = result.value._service;
    if (!has_more || cursor === null || page === options.maxPages) return;
    next = { ...next, [bound]: cursor };
  }
}

/** The rows of every page, one at a time. */
export async function* itemsOf<T>(pages: AsyncIterable<{ data: T[] }>): AsyncGenerator<T, void, undefined> {
  for await (const page of pages) yield* page.data;
}

/**
 * Every page of a user search: its cursor is the rank of the next page's first user, sent as
 * `offset` (the operation's description in the API reference).
 */
export async function* rankedPagesOf(
  call: (
    operation: "searchUsers",
    params: OperationInput<"searchUsers">,
    options?: PageOptions,
  ) => Promise<GatewayResult<Envelope<"searchUsers">>>,
  params: OperationInput<"searchUsers">,
  options: PageOptions = {},
): AsyncGenerator<Envelope<"searchUsers">, void, undefined> {
  let next = params;
  for (let page = 1; ; page++) {
    const result = await call("searchUsers", next, { ...options, idempotencyKey: undefined });
    if (!result.ok) throw new GatewayApiError(result.error);
    yield result.value;
    const { has_more, cursor } = result.value._service;
    if (!has_more || cursor === null || page === options.maxPages) return;
    next = { ...next, offset: cursor };
  }
}
