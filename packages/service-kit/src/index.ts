export {
  type AdapterAsk,
  type AdapterOutcome,
  type AnswerSource,
  adapterJson,
  callAdapter,
  describeAdapterFailure,
} from "./adapter-caller.ts";
export { type ApiKeyProblem, hashApiKey, presentedKey, readApiKey, sha256Hex } from "./api-keys.ts";
export {
  type ArchiveCount,
  adapterArchiveCount,
  type CountedWindow,
  type CountFailure,
  pagesForRows,
} from "./archive-count.ts";
export {
  assertDeadlineOrder,
  ConfigError,
  env,
  loadConfig,
  type NatsIdentity,
  natsIdentity,
  type TrustProxy,
  trustProxyOption,
} from "./config.ts";
export {
  ACK,
  type ConsumerLoopOptions,
  LEAVE,
  type MessageEnd,
  retryIn,
  startConsumerLoop,
} from "./consumer-loop.ts";
export {
  createDebitEnds,
  type DebitEnds,
  type DebitEndsDeps,
  type DebitEndsHooks,
  type DebitId,
  type Deferred,
} from "./debit-ends.ts";
export {
  addressKey,
  createFailedAuthLimiter,
  type FailedAuthLimiter,
  type FailedAuthLimits,
} from "./failed-auth-limiter.ts";
export {
  createInternalCredentials,
  createPortalCredentials,
  credentialKind,
  INTERNAL_CREDENTIAL_SECONDS,
  type InternalCredentials,
  type PortalCaller,
  type PortalCredentials,
} from "./gateway-credentials.ts";
export { evaluateReadiness, type HealthServer, type ReadinessCheck, startHealthServer } from "./health.ts";
export * from "./jetstream.ts";
export * from "./jetstream-setup.ts";
export { type KeyRevocationWatch, watchKeyRevocations } from "./key-revocations.ts";
export { LEASE_STILL_HELD, type Lease, renewWhileHeld, takeLease, withLease } from "./lease.ts";
export { onShutdown, runMain, type ShutdownStep } from "./lifecycle.ts";
export { createLogger, type Logger, type LoggerOptions, maskApiKeys } from "./logger.ts";
export { type Loop, type LoopOptions, startLoop } from "./loop.ts";
export { type LuaArg, type LuaCall, type LuaScript, luaScript, preloadScripts } from "./lua-script.ts";
export {
  type BuildInfo,
  Counter,
  createMetricsRegistry,
  Gauge,
  Histogram,
  type MetricsServer,
  Registry,
  startMetricsServer,
} from "./metrics.ts";
export {
  type BillingAnswer,
  type BillingCaller,
  billingCaller,
  connectNats,
  inboxPrefixOf,
  isNatsConnected,
  type NatsConnection,
  type NatsRequestFailure,
  type ProgressRequestOptions,
  type RpcAnswer,
  type RpcCaller,
  readServiceError,
  requestJson,
  requestRaw,
  requestWithProgress,
  respondWithError,
  rpcCaller,
  ServiceError,
} from "./nats.ts";
export { PROGRESS_HEADER, type RequestHandler, type ServedSubject, serveSubject } from "./nats-service.ts";
export { REQUEST_ID_HEADER, receivedContext, traceHeaders } from "./nats-trace.ts";
export * from "./notice-events.ts";
export {
  type Observability,
  type ObservabilityConfig,
  observabilityEnv,
  packageVersion,
  startObservability,
} from "./observability.ts";
export {
  BlockedAddressError,
  checkOutgoingUrl,
  isLocalhostName,
  isLoopbackAddress,
  isPublicAddress,
  OutgoingRequestRefused,
  type OutgoingSwitches,
  publicOnlyLookup,
} from "./outbound-guard.ts";
export {
  CACHE_CALL_TIMEOUT_MS,
  cacheCall,
  connectRedis,
  isRedisReady,
  isStoreFailure,
  openRedis,
  REDIS_COMMAND_TIMEOUT_MS,
  type Redis,
  type RedisOptions,
  redactUrl,
  redisResponds,
} from "./redis.ts";
export {
  answerRequestHash,
  type PortalRedisKeys,
  type RedisKeys,
  redisKeys,
  type UpstreamCacheKeys,
  type UpstreamPacerKeys,
} from "./redis-keys.ts";
export { markedBy, type RequestTokenMark, withMark } from "./request-tokens.ts";
export { type Backoff, DEFAULT_BACKOFF, retryWithBackoff } from "./retry.ts";
export { type SafeFetchOptions, safeFetch } from "./safe-fetch.ts";
export {
  keyFromCallerSecrets,
  openBytes,
  sealBytes,
  sealedFromText,
  sealedText,
  sealingKeyFrom,
} from "./sealing.ts";
export {
  activeLogFields,
  type Context,
  extractContext,
  injectContext,
  inSpan,
  otelContext,
  otelTrace,
  type Span,
  SpanKind,
  SpanStatusCode,
  startTracing,
  type Tracing,
  traced,
  tracingActive,
  withRequestId,
} from "./tracing.ts";
export { type WorkBilling, type WorkBillingOptions, workBilling } from "./work-billing.ts";
