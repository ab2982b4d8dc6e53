export { ConfigError, env, loadConfig } from "./config.ts";
export { evaluateReadiness, type HealthServer, type ReadinessCheck, startHealthServer } from "./health.ts";
export * from "./jetstream.ts";
export { onShutdown, runMain, type ShutdownStep } from "./lifecycle.ts";
export { createLogger, type Logger, type LoggerOptions, maskApiKeys } from "./logger.ts";
export {
  connectNats,
  isNatsConnected,
  type NatsConnection,
  type NatsRequestOutcome,
  requestJson,
  requestRaw,
} from "./nats.ts";
export { type RequestHandler, type ServedSubject, serveSubject } from "./nats-service.ts";
export { connectRedis, isRedisReady, openRedis, type Redis, redactUrl } from "./redis.ts";
export { type RedisKeys, redisKeys } from "./redis-keys.ts";
