export { createGatewayClient, type GatewayClient } from "./client.ts";
export {
  ERROR_KIND_BY_STATUS,
  GatewayApiError,
  type GatewayError,
  type GatewayErrorKind,
  isGatewayApiError,
  parseRetryAfter,
  unwrap,
} from "./errors.ts";
export type {
  ExportCallOptions,
  ExportJob,
  ExportManifest,
  ExportQuote,
  ExportRequest,
  ExportsClient,
  WaitOptions,
} from "./exports.ts";
export type { components, paths } from "./generated/openapi.ts";
export { OPERATIONS } from "./generated/operations.ts";
export type {
  CallOptionsOf,
  IdempotentCallOptions,
  ResourceAnswer,
  ResourceCallOptions,
} from "./json-call.ts";
export type {
  CreatedMonitor,
  Monitor,
  MonitorChange,
  MonitorDeliveries,
  MonitorDelivery,
  MonitorEstimate,
  MonitorItemsPage,
  MonitorList,
  MonitorRequest,
  MonitorsClient,
  PullOptions,
  RotatedWebhookSecret,
} from "./monitors.ts";
export type {
  Account,
  Activity,
  CallOptions,
  Comment,
  CommentTreeNode,
  Community,
  CommunityRule,
  CreditServiceMeta,
  Envelope,
  GatewayClientOptions,
  GatewayResult,
  ListServiceMeta,
  MoreStub,
  OperationInput,
  OperationName,
  PagedOperation,
  PageOptions,
  Post,
  RetryOptions,
  ServiceMetaOf,
  SubredditRules,
  UserProfile,
  UserProfileResult,
} from "./types.ts";
export {
  type MonitorWebhookEvent,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
} from "./webhooks.ts";
