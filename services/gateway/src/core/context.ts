/**
 * What every route handler needs, built once in `buildGateway`, and what a step of a request returns
 * when it fails. Expected outcomes are values: a step returns `Step<T>`, the project's one `Result`
 * with a `Failure` naming its catalog code; only `http/send-error.ts` turns a failure into an HTTP
 * answer.
 */
import { type ErrorCode, err, type Result } from "@rda/contracts";
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

export interface Failure {
  readonly code: ErrorCode;
  /** Appended to the catalog message, so the developer sees what to fix (e.g. which parameter). */
  readonly detail?: string;
  /**
   * The whole sentence, when the service that owns the thing (monitors, exports) wrote it for the
   * caller; the catalog's message and `detail` are then not used.
   */
  readonly message?: string;
  /** The one parameter at fault, when the code knows it (otherwise read from the sentence). */
  readonly param?: string;
  /** Seconds for `Retry-After` on 429 and 503. */
  readonly retryAfterSeconds?: number;
  /** Why, for the log only (e.g. an adapter's upstream error); never shown to the caller. */
  readonly internal?: string;
  /** Set once the credit this request was charged has been given back, so the answer may say so. */
  readonly refunded?: boolean;
}

export type Step<T> = Result<T, Failure>;

export { ok as succeed } from "@rda/contracts";

export const fail = (code: ErrorCode, extra: Omit<Failure, "code"> = {}): Step<never> =>
  err({ code, ...extra });
