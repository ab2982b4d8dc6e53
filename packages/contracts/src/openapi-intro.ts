/** The API reference's introduction: what every endpoint shares, in Markdown (rendered at /docs). */
export const API_DESCRIPTION = `Read-only, pay-per-request access to public Reddit data: posts, comments, whole comment trees, community search and rules, and user profile aggregates. The same API is offered to AI agents as a remote MCP server at \`/mcp\`.

## Authentication

Send your API key on every request, as \`x-api-key: <key>\` or as \`Authorization: Bearer <key>\`; both are accepted everywhere. A missing, unknown or revoked key gets 401.

## Credits

Every data request costs 1 credit from the key's prepaid balance; \`GET /v1/account\` is free. Failed requests are never charged: 400, 401, 402, 408, 409, 414, 422, 429, 431 and 503 take nothing, and a request that fails after its debit (502, or an upstream refusal) is refunded before its answer is sent; that answer carries \`x-credits-used\`, \`x-credits-refunded\` and \`x-credits-remaining\`. A request whose client hangs up before the answer is written is refunded too. Every 200 carries the figures in its body (\`_service.credits_used\`, \`_service.credits_remaining\`) and in the \`x-credits-used\` and \`x-credits-remaining\` headers.

## Rate limits

Each key has its own limit (2 requests per second, bursts of 10, unless set otherwise), spent by every request it authenticates, refused or not, and described on every answer by the \`RateLimit-Policy\` and \`RateLimit\` headers (the IETF RateLimit header fields draft): \`"per-key";q=10;w=5\` and \`"per-key";r=<left>;t=<seconds until full>\`. Data requests also need a place in the service's shared upstream capacity, which only requests that will reach the data source take; when it is exhausted the answer is 429 with \`x-ratelimit-scope: global\`. A client address that keeps sending malformed, unknown or revoked keys (more than 20 in a row, then 1 per second) gets 429 with \`Retry-After\` for any key not already known to be valid.

## Retries

A data request may carry an \`Idempotency-Key\` header (1 to 255 visible ASCII characters, e.g. a UUID). Repeating the request with the same key within 24 hours returns the first response again, with its original credit figures and \`Idempotent-Replayed: true\`, and charges nothing more. Only served, charged responses are replayed: after a refunded failure the retry is a new attempt. The same key with a different request gets 422; a duplicate sent while the first is still being served gets 409.

## Pagination

Posts and comments of a community or author come in pages ordered by \`created_utc\`, newest first by default. Each page's \`_service.cursor\` is the \`created_utc\` of its last row. For the next page, pass it as \`before\` when sorting newest first (\`sort=desc\`) or as \`after\` when sorting oldest first (\`sort=asc\`); stop when \`_service.has_more\` is false. Each page costs 1 credit.

A page may hold **fewer rows than \`limit\` while \`has_more\` is true**. The bounds are exclusive and many rows can share one \`created_utc\` second, so a second is never split across pages: a full page ends before the second that its last row would share with the next page. With \`q\`, the filter applies to each fetched page, so a page can even be empty while \`has_more\` is true: keep paging.

## Errors

Every error is JSON of the form \`{"error": "..."}\`; the message says what to fix. 429 and 503 carry \`Retry-After\` (seconds); a 429 with \`x-ratelimit-scope: global\` means the service's shared upstream capacity, not your key's own limit, is exhausted. Every response carries \`x-request-id\`: quote it when asking for help. The request itself may be refused before any endpoint sees it: 408 when its request line and headers take over 10 s to arrive, 414 for a URL (path and query) over 64 KiB, 431 for header fields over 80 KiB. Within 64 KiB a batch of thousands of ids is read, and its first 100 used.

## Caching

Responses are \`Cache-Control: no-store\` and vary on \`Authorization\` and \`x-api-key\`: an answer belongs to the key that paid for it.
`;
