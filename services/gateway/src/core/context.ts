/** What every route handler needs, built once in `buildGateway`. */
import type {
  FailedAuthLimiter,
  InternalCredentials,
  Logger,
  NatsConnection,
  PortalCredentials,
  Redis,
} from "@rda/service-kit";
import type { AccessTokenVerifier } from "../oauth/access-tokens.ts";
import type { ProtectedResource } from "../oauth/protected-resource.ts";
import type { RevokedGrants } from "../oauth/revoked-grants.ts";
import type { AdapterClient, CachedAnswers } from "./adapter-client.ts";
import type { BillingClient } from "./admission.ts";
import type { Refunds, Settlement } from "./debits.ts";
import type { IdempotencyStore } from "./idempotency.ts";
import type { KeyDirectory } from "./key-directory.ts";
import type { GatewayMetrics } from "./metrics.ts";

/** What an error answer quotes besides the catalog's message (http/send-error.ts). */
export interface ErrorContext {
  /** Where to add credits, put in every 402 body. */
  readonly topUpUrl: string;
  /** Where a key's owner changes its monthly spend cap, put in a cap's 402 body. */
  readonly spendCapUrl: string;
}

export interface GatewayContext {
  readonly nats: NatsConnection;
  readonly redis: Redis;
  readonly logger: Logger;
  readonly keys: KeyDirectory;
  readonly billing: BillingClient;
  readonly adapters: AdapterClient;
  /** The adapters' final answers, read after admission (adapter-client.ts). */
  readonly cachedAnswers: CachedAnswers;
  readonly refunds: Refunds;
  readonly settlement: Settlement;
  readonly idempotency: IdempotencyStore;
  /** Refused keys per client address (docs/api.md#rate-limits). */
  readonly failedAuth: FailedAuthLimiter;
  readonly metrics: GatewayMetrics;
  readonly errors: ErrorContext;
  readonly settings: { readonly pendingDebitMs: number };
  readonly billingTimeoutMs: number;
  readonly mcpUrl: string;
  /** Web origins whose pages may read /mcp's answers (MCP_ALLOWED_ORIGINS). */
  readonly mcpAllowedOrigins: ReadonlySet<string>;
  /** /mcp as an OAuth resource server: its identity, and access token validation. */
  readonly oauth: {
    readonly resource: ProtectedResource;
    readonly tokens: AccessTokenVerifier;
    readonly revokedGrants: RevokedGrants;
  };
  /** The MCP service's credentials for OAuth callers' inner calls (internal listener only). */
  readonly internalCredentials: InternalCredentials;
  /** The developer portal's credentials for its pages' calls (internal listener, a few routes only). */
  readonly portalCredentials?: PortalCredentials;
  /** The most a request body may weigh, and how long it may take to arrive. */
  readonly body: { readonly limitBytes: number; readonly timeoutMs: number };
}
