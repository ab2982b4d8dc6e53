/** What every route handler needs, built once in `buildGateway`. */
import type { Logger, NatsConnection, Redis } from "@rda/service-kit";
import type { AdapterClient } from "./adapter-client.ts";
import type { BillingClient } from "./billing-client.ts";
import type { ErrorContext } from "./http/send-error.ts";
import type { KeyDirectory } from "./key-directory.ts";
import type { GatewayMetrics } from "./metrics.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import type { RefundPublisher } from "./refunds.ts";

export interface GatewayContext {
  readonly nats: NatsConnection;
  readonly redis: Redis;
  readonly logger: Logger;
  readonly keys: KeyDirectory;
  readonly limiter: RateLimiter;
  readonly billing: BillingClient;
  readonly adapters: AdapterClient;
  readonly refunds: RefundPublisher;
  readonly metrics: GatewayMetrics;
  readonly errors: ErrorContext;
  readonly mcpUrl: string;
}
