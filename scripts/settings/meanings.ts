/**
 * What each environment variable means, for the operator reading docs/settings.md. Its default and
 * its readers come from the schemas (readers.ts); a variable a schema gains needs a line here.
 */
export const SETTING_MEANINGS: Readonly<Record<string, string>> = {
  ACCOUNT_MAX_ACTIVE_KEYS: "keys a developer-portal account may hold unrevoked, and create in its lifetime",
  ACCOUNT_MAX_KEYS_CREATED: "keys a developer-portal account may hold unrevoked, and create in its lifetime",
  ADAPTER_TIMEOUT_MS:
    "how long the gateway waits for an adapter; must be longer than `UPSTREAM_DEADLINE_MS` (both services refuse to start otherwise); an adapter silent for 1.5 s is given up sooner",
  BILLING_TIMEOUT_MS:
    "how long a caller waits for billing, slower counts as an outage (503); must exceed billing's `REDIS_COMMAND_TIMEOUT_MS`",
  BODY_TIMEOUT_MS:
    "a request line and headers, then a body (only `/mcp` takes one), not received in full by then: 408",
  BUILD_COMMIT: "the commit shown in `rda_build_info`",
  CACHE_FRESH_S:
    "longest an answer is served again: data of the last 36 hours, settled data, user aggregates ([freshness](api.md#freshness))",
  CACHE_MAX_BYTES:
    "bytes of cached answers, every replica together; 0 stores nothing (identical calls still become one)",
  CACHE_MAX_ENTRY_BYTES: "a larger answer is neither cached nor handed to waiting replicas",
  CACHE_REDIS_URL:
    "the response cache's own Redis ([response cache](operations.md#the-response-cache)); unset: the adapters' `REDIS_URL`, bounded by `CACHE_MAX_BYTES`",
  CACHE_SETTLED_S:
    "longest an answer is served again: data of the last 36 hours, settled data, user aggregates ([freshness](api.md#freshness))",
  CACHE_USER_S:
    "longest an answer is served again: data of the last 36 hours, settled data, user aggregates ([freshness](api.md#freshness))",
  EXPORTS_BALANCE_RETRY_MS: "how soon a job paused at a zero balance looks again",
  EXPORTS_CONCURRENCY: "jobs one replica runs at once",
  EXPORTS_DIR: "the file store: a directory every replica shares (unless `EXPORTS_S3_BUCKET` is set)",
  EXPORTS_LINK_SECRET: "signs the download links; at least 32 characters, the same on every replica",
  EXPORTS_LINK_URL: "where the gateway reaches the listener (the Service's address)",
  EXPORTS_PAGES_PER_SECOND:
    "pages one job fetches per second: the export share of the upstream budget, and the quote's ETA",
  EXPORTS_PORT: "its internal listener: health, and files by signed link",
  EXPORTS_QUOTES_PER_MINUTE:
    "quotes one key may ask a minute (each reads the archive: one probe page and the window's count); one more is 429",
  EXPORTS_RETENTION_DAYS: "how long a finished file is kept",
  EXPORTS_S3_ACCESS_KEY_ID:
    "both or neither; neither: the SDK's default credential chain (an instance or pod role, `AWS_*` variables)",
  EXPORTS_S3_ALWAYS_CHECKSUM:
    "`1`: send and check the SDK's default checksums on every request (AWS S3 takes them; many S3-compatible servers do not, so by default only where S3 requires them)",
  EXPORTS_S3_BUCKET: "set: files go to this S3-compatible bucket instead of `EXPORTS_DIR`",
  EXPORTS_S3_ENDPOINT: "an S3-compatible server's URL (MinIO, Ceph, R2, …)",
  EXPORTS_S3_FORCE_PATH_STYLE:
    "`1`: path-style URLs (`endpoint/bucket/key`), which most S3-compatible servers need",
  EXPORTS_S3_PREFIX: "keys start with it, e.g. `exports/` (empty, or ending in `/`)",
  EXPORTS_S3_REGION: "the bucket's region",
  EXPORTS_S3_SECRET_ACCESS_KEY:
    "both or neither; neither: the SDK's default credential chain (an instance or pod role, `AWS_*` variables)",
  FAILED_AUTH_BURST:
    "refused keys one client address may send in a row, and per second after that (the portal: to its usage JSON) ([rate limits](api.md#rate-limits))",
  FAILED_AUTH_QPS:
    "refused keys one client address may send in a row, and per second after that (the portal: to its usage JSON) ([rate limits](api.md#rate-limits))",
  FREE_CREDITS: "credits granted to a new key",
  GATEWAY_INTERNAL_HOST: "bind address of the internal listener",
  GATEWAY_INTERNAL_PORT:
    "the internal listener: where the MCP service and the portal call; never route it publicly",
  GATEWAY_INTERNAL_SECRET:
    "secret (32+ characters, the same on every replica) signing the MCP service's seconds-lived credentials for OAuth callers; set it whenever more than one gateway runs",
  GATEWAY_TIMEOUT_MS:
    "deadline of one tool's call to the gateway; must exceed `ADAPTER_TIMEOUT_MS` (which mcp reads to check)",
  GATEWAY_TRUST_PROXY:
    "whose `X-Forwarded-For` names the client: `true`, a hop count (`1`: one proxy) or CIDRs",
  GATEWAY_URL:
    "the gateway's internal listener: where tool calls (mcp) and the monitor and export pages' calls (portal) go",
  HEALTH_HOST: "bind address of the health server (0.0.0.0 in the container images)",
  HEALTH_PORT: "port of `/livez` and `/readyz`",
  HOST: "bind address",
  IDEMPOTENCY_KEY_QUOTA_BYTES: "stored responses one API key may hold within the 24-hour replay window",
  IDEMPOTENCY_MAX_RESPONSE_BYTES:
    "a larger response is not stored for `Idempotency-Key` replays ([the idempotency store](operations.md#the-idempotency-store))",
  IDEMPOTENCY_STORE_MAX_BYTES: "stored responses of all keys together; past it, none more is stored",
  LOG_LEVEL: "`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`",
  MAIL_FROM: "sender of the sign-in emails",
  MAIL_SMTP_PORT: "the local capture inbox's SMTP port and web page",
  MCP_ALLOWED_ORIGINS:
    "comma-separated web origins whose pages may call `/mcp` (the same list for both: the gateway's own answers at `/mcp` carry CORS for them)",
  MCP_BODY_TIMEOUT_MS: "a request to the MCP service not received in full by then: 408",
  MCP_HOST: "bind address of the MCP service alone",
  MCP_PORT: "port of `/mcp`, `/livez`, `/readyz`",
  MCP_RESULT_BUDGET_BYTES: "largest tool result, as JSON bytes (at least 4096); stated to agents",
  MCP_URL: "where `/mcp` is proxied",
  METRICS_HOST: "bind address of the metrics server",
  METRICS_PORT: "internal Prometheus port (`GET /metrics`)",
  MONITORS_PER_ACCOUNT: "monitors one account may hold across its keys ([monitors](api.md#monitors))",
  MONITOR_BACKFILL_PAGES_PER_POLL:
    "backfill pages one monitor may take per poll: fairness between long windows and the rest",
  MONITOR_LOOKBACK_EVERY_MS:
    "how often a followed source's newest page is read again for items the archive ingested late (one page per source; 0: never)",
  MONITOR_MIN_INTERVAL_SECONDS:
    "the shortest interval a monitor may ask for, in seconds; lower only for development",
  MONITOR_WEBHOOK_SECRET_OVERLAP_S: "how long a rotated webhook secret still signs beside the new one",
  MONITOR_WEBHOOK_TIMEOUT_MS: "one webhook attempt's deadline",
  NATS_PASSWORD: "the service's own NATS identity, both or neither",
  NATS_REPLICAS:
    "copies of every JetStream stream and bucket the service sets up: 1, 3 or 5 (3 on a three-node NATS cluster; [JetStream](operations.md#jetstream))",
  NATS_URL: "NATS with JetStream; comma-separated cluster seeds; `tls://` insists on TLS",
  NATS_USER: "the service's own NATS identity, both or neither",
  NOTICES_PER_ACCOUNT_PER_HOUR:
    "optional notices (low balance, cap warnings) one account may get per hour; receipts and payment problems always go",
  OAUTH_JWKS_URL:
    "where the gateway reads the portal's token-signing public keys (an in-cluster address in production)",
  OAUTH_REGISTRATIONS_PER_CLIENT_PER_HOUR:
    "dynamic OAuth client registrations one client IP may make per hour (then 429)",
  OAUTH_SIGNING_KEY:
    "EC P-256 private key (PEM; `\\n` for newlines accepted) signing OAuth access tokens, the same on every replica; from a Secret in production",
  OTEL_EXPORTER_OTLP_ENDPOINT: "OTLP/HTTP collector base URL; traces go to `<url>/v1/traces`",
  PAYMENTS_SIM_HOST: "bind address",
  PAYMENTS_SIM_PORT: "the payments simulator's port",
  PAYMENTS_SIM_PUBLIC_URL: "where browsers reach its checkout page",
  PAYMENTS_SIM_WEBHOOK_URL: "where its webhooks go (`pnpm start`: the portal's `/stripe/webhook`)",
  PENDING_DEBIT_MS:
    "a debit nobody settled by then is voided (refunded); must be longer than `ADAPTER_TIMEOUT_MS` (checked at start), at most 600000",
  PENDING_SWEEP_MS: "how often pending debits past their deadline are voided (refunded)",
  PORT: "public HTTP port",
  PORTAL_GATEWAY_SECRET:
    "secret (32+ characters, the same on the portal and every gateway, never `GATEWAY_INTERNAL_SECRET`'s value) signing the portal's seconds-lived credentials for its monitor and export pages' calls to the gateway's internal listener; unset, those pages answer unavailable. Required in production",
  PORTAL_HOST: "bind address of the portal alone",
  PORTAL_MAIL_PER_ADDRESS_ALL_CLIENTS_PER_HOUR:
    "sign-in emails one address may receive per hour from all clients, browsers that signed in to it before excepted (services/portal/README.md)",
  PORTAL_MAIL_PER_ADDRESS_PER_HOUR: "sign-in emails one address may receive per hour from one client",
  PORTAL_MAIL_PER_CLIENT_PER_HOUR: "sign-in emails one client IP may request per hour",
  PORTAL_PORT: "the developer portal's HTTP port",
  PORTAL_SDK_DIR: "the folder the SDKs are served from (`/sdk/rda-sdk-<version>.tgz`, the Python wheel)",
  PORTAL_SESSION_HOURS: "how long a session lasts",
  PORTAL_TRUST_PROXY: "whose `X-Forwarded-For` names the client: `true`, a hop count or proxy CIDRs",
  PORTAL_URL: "public base of the portal (links, 402 bodies); `https://` makes its cookies Secure",
  PUBLIC_API_URL:
    "the API's public base URL: `<PUBLIC_API_URL>/mcp` is the OAuth resource (byte for byte); the portal's snippets",
  RATE_LIMIT_BURST: "rate limit stored with each new key; an existing key keeps its own",
  RATE_LIMIT_QPS: "rate limit stored with each new key; an existing key keeps its own",
  RDA_NAMESPACE:
    "prefix of every NATS subject, stream and Redis key ([NATS subjects](operations.md#nats-subjects))",
  REDIS_COMMAND_TIMEOUT_MS:
    "a Redis command without an answer by then fails: 503, nothing charged ([timeouts](operations.md#timeouts))",
  REDIS_URL:
    "Redis; `/N` selects database N; its ACL user and password in the URL; the adapters keep the upstream pacer there",
  SIM_AFTER_INCLUSIVE: "the data quirks, each over its profile's value ([profiles](operations.md#profiles))",
  SIM_ANCHOR: "epoch seconds the corpus is laid around; same seed and anchor give the same data",
  SIM_BEFORE_INCLUSIVE: "the data quirks, each over its profile's value ([profiles](operations.md#profiles))",
  SIM_HEAVY_LATENCY_MS:
    "requests per client per minute (0: none), 1 to send `x-ratelimit-remaining`, requests in flight before the busy answer (0: no cap), ms added to heavy queries",
  SIM_HOST: "bind address",
  SIM_LATENCY_MS: "delay added to every answer outside `/__sim`",
  SIM_LATE_INGEST_S: "the data quirks, each over its profile's value ([profiles](operations.md#profiles))",
  SIM_LATE_INGEST_SHARE:
    "the data quirks, each over its profile's value ([profiles](operations.md#profiles))",
  SIM_MAX_IN_FLIGHT:
    "requests per client per minute (0: none), 1 to send `x-ratelimit-remaining`, requests in flight before the busy answer (0: no cap), ms added to heavy queries",
  SIM_NULL_RULE_DESCRIPTIONS:
    "the data quirks, each over its profile's value ([profiles](operations.md#profiles))",
  SIM_PORT: "simulator port",
  SIM_PROFILE:
    "`strict`: the upstream's real budget ([budget quirks](operations.md#budget-quirks)); the flags below override it one by one",
  SIM_REQUIRE_USER_AGENT:
    "the data quirks, each over its profile's value ([profiles](operations.md#profiles))",
  SIM_SCALE: "corpus size multiplier, up to 10 (1: 30,000 posts, about 300,000 comments)",
  SIM_SEED: "seed of the corpus and of rate-based faults",
  SIM_SEND_REMAINING:
    "requests per client per minute (0: none), 1 to send `x-ratelimit-remaining`, requests in flight before the busy answer (0: no cap), ms added to heavy queries",
  SIM_STRING_EPOCHS_BEFORE:
    "the data quirks, each over its profile's value ([profiles](operations.md#profiles))",
  SIM_TRANSIENT_EMPTY_PAGES:
    "the data quirks, each over its profile's value ([profiles](operations.md#profiles))",
  SIM_TREE_NEEDS_PREFIX:
    "the data quirks, each over its profile's value ([profiles](operations.md#profiles))",
  SIM_WINDOW_LIMIT:
    "requests per client per minute (0: none), 1 to send `x-ratelimit-remaining`, requests in flight before the busy answer (0: no cap), ms added to heavy queries",
  SMTP_URL: "outgoing mail, `smtp://` or `smtps://user:pass@host`",
  STRIPE_API_URL: "base URL of the Stripe API; `http://` only with a test key (the payments simulator)",
  STRIPE_SECRET_KEY: "Stripe secret key; unset, `pnpm start` runs the payments simulator with a test key",
  STRIPE_WEBHOOK_SECRET:
    "the webhook endpoint's signing secret, `whsec_…`; required with `STRIPE_SECRET_KEY`; billing, given the same, credits only events Stripe signed",
  SUPPORT_EMAIL: "contact shown on the pages",
  TOPUP_URL: "link put in 402 bodies",
  UPSTREAM_ATTEMPT_TIMEOUT_MS:
    "one HTTP attempt: heavy upstream queries take seconds; at most `UPSTREAM_DEADLINE_MS`",
  UPSTREAM_CONCURRENCY:
    "the upstream budget of the whole product, every replica together: requests a second and requests in flight (the pacer; [why](upstream.md#rate-limits)); fractions allowed for the rate",
  UPSTREAM_DEADLINE_MS:
    "total time for one upstream call, every attempt, wait and turn in the pacer included; the gateway reads it only to check that `ADAPTER_TIMEOUT_MS` is longer",
  UPSTREAM_REQUESTS_PER_SECOND:
    "the upstream budget of the whole product, every replica together: requests a second and requests in flight (the pacer; [why](upstream.md#rate-limits)); fractions allowed for the rate",
  UPSTREAM_SHARE_EXPORTS:
    "the share of upstream turns each background class is sure of under interactive load, 0 to 1 ([the scheduler](upstream.md#rate-limits))",
  UPSTREAM_SHARE_MONITORS:
    "the share of upstream turns each background class is sure of under interactive load, 0 to 1 ([the scheduler](upstream.md#rate-limits))",
  UPSTREAM_URL: "base URL of the upstream API; when set, `pnpm start` does not run the simulator",
  UPSTREAM_USER_AGENT:
    "the `User-Agent` of every upstream request: name the product and a contact, such as `reddit-data-api/1.0 (ops@example.com)`; printable ASCII, at most 200 characters. Unset while `UPSTREAM_URL` is not a loopback address, the adapters warn at start-up",
  WEBHOOK_SEALING_KEY:
    "32 bytes (base64, or 64 hex digits) sealing every webhook signing secret at rest (AES-256-GCM): monitors' and accounts' notice webhooks, and (through a derived key) the portal's one-click unsubscribe links; the same on every replica of the monitors, portal and notices processes. Unset: monitors cannot have a `webhook_url` (pull still works), accounts cannot set a notice webhook and notice emails link the notifications page instead",
  WEBHOOKS_ALLOW_LOOPBACK:
    "`1`: webhooks may also go to `http://127.0.0.1` (each logs a warning at start); local development only, never in production",
};
