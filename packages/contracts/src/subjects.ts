/**
 * Every NATS name the services use, built in one place. A namespace prefix lets tests (and several
 * stacks sharing one NATS) run side by side without seeing each other's traffic.
 */
import { buildExportSubjects, type ExportSubjects } from "./exports.ts";

const ADAPTER_SUBJECTS = {
  listPosts: "adapter.posts.list",
  listComments: "adapter.comments.list",
  getCommentTree: "adapter.tree.get",
  searchSubreddits: "adapter.subreddits.search",
  getSubredditRules: "adapter.subreddits.rules",
  getUserProfile: "adapter.users.get",
  searchUsers: "adapter.users.search",
  getActivity: "adapter.activity.get",
} as const;

const BILLING_SUBJECTS = {
  lookupKey: "billing.keys.lookup",
  admit: "billing.admit",
  settle: "billing.settle",
  /** Request-reply: a refund applied before the failed request is answered. */
  refund: "billing.refund",
  createKey: "billing.keys.create",
  showKey: "billing.keys.show",
  listKeys: "billing.keys.list",
  revokeKey: "billing.keys.revoke",
  rotateKey: "billing.keys.rotate",
  /** The portal's: the same changes, always within one account (key-messages.ts). */
  createAccountKey: "billing.accounts.keys.create",
  revokeAccountKey: "billing.accounts.keys.revoke",
  rotateAccountKey: "billing.accounts.keys.rotate",
  /** A key's monthly spend cap: the operator's, and the portal's within one account. */
  setSpendCap: "billing.keys.cap",
  setAccountSpendCap: "billing.accounts.keys.cap",
  /** The portal's: an account's low-balance threshold, applied to each of its keys. */
  setLowBalanceThreshold: "billing.accounts.keys.low-balance",
  keyUsage: "billing.keys.usage",
  topUp: "billing.keys.topup",
  verifyLedger: "billing.ledger.verify",
  /** A work debit (an export page, a monitor's webhook batch): once per work id (billing-messages.ts). */
  debitWork: "billing.work.debit",
  /** Card payments, asked by the developer portal (and `payments.list` by the operator CLI). */
  applyPayment: "billing.payments.apply",
  reversePayment: "billing.payments.reverse",
  listPayments: "billing.payments.list",
  /** Fan-out event (no queue group): every gateway drops a revoked or rotated key from its cache. */
  keyChanged: "billing.events.key_changed",
  /**
   * JetStream subject (stream `noticeStream`): a debit crossed a line the key's account is told
   * about, or a monitor or export paused for lack of credits (key-messages.ts, noticeEventSchema).
   */
  notice: "billing.events.notice",
  /** JetStream subject of refund messages (when billing cannot answer at once); deduplicated by request id. */
  refunds: "billing.refunds",
} as const;

const PORTAL_SUBJECTS = {
  /**
   * Fan-out event (no queue group): a person revoked an OAuth client's access in the portal; every
   * gateway refuses that grant's access tokens from then on, before they expire.
   */
  grantRevoked: "portal.events.grant_revoked",
} as const;

/** The monitors service's requests (MONITORS_RPC, monitors-rpc.ts), asked by the gateway. */
const MONITOR_SUBJECTS = {
  create: "monitors.create",
  estimate: "monitors.estimate",
  list: "monitors.list",
  get: "monitors.get",
  update: "monitors.update",
  delete: "monitors.delete",
  items: "monitors.items",
  deliveries: "monitors.deliveries",
  redeliver: "monitors.redeliver",
  test: "monitors.test",
  rotate_secret: "monitors.rotate_secret",
} as const;

export type AdapterOperation = keyof typeof ADAPTER_SUBJECTS;
export type BillingSubject = keyof typeof BILLING_SUBJECTS;
export type PortalSubject = keyof typeof PORTAL_SUBJECTS;

/** Queue groups: every replica of one service joins the same group, so each message goes to one. */
export const QUEUE_GROUPS = {
  adapterPosts: "adapter-posts",
  adapterTree: "adapter-tree",
  adapterCommunities: "adapter-communities",
  adapterUsers: "adapter-users",
  billing: "billing",
} as const;

export interface Subjects {
  readonly adapter: { readonly [K in AdapterOperation]: string };
  readonly billing: { readonly [K in BillingSubject]: string };
  readonly portal: { readonly [K in PortalSubject]: string };
  readonly monitors: { readonly [K in keyof typeof MONITOR_SUBJECTS]: string };
  /** JetStream stream holding refund messages. */
  readonly refundStream: string;
  /** Durable consumer that billing replicas share, so each refund is handled by one of them. */
  readonly refundConsumer: string;
  /** JetStream work-queue stream holding notice events until a portal has sent them. */
  readonly noticeStream: string;
  /** Durable consumer that portal replicas share, so each notice event is handled by one of them. */
  readonly noticeConsumer: string;
  /** Export jobs: the management subject and the work queue (exports.ts). */
  readonly exports: ExportSubjects;
}

/**
 * A namespace (env RDA_NAMESPACE) prefixes every NATS subject, JetStream stream and Redis key, so
 * several stacks or tests can share one server. Safe in a subject token, a stream name and a key.
 */
export const NAMESPACE_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

export function buildSubjects(namespace = ""): Subjects {
  if (namespace !== "" && !NAMESPACE_PATTERN.test(namespace)) {
    throw new Error(`namespace must match ${NAMESPACE_PATTERN}, got '${namespace}'`);
  }
  const dot = namespace === "" ? "" : `${namespace}.`;
  const prefixAll = <T extends Record<string, string>>(names: T) =>
    Object.fromEntries(Object.entries(names).map(([k, v]) => [k, `${dot}${v}`])) as {
      [K in keyof T]: string;
    };
  const streamPrefix = namespace === "" ? "" : `${namespace.toUpperCase().replace(/-/g, "_")}_`;
  return Object.freeze({
    adapter: Object.freeze(prefixAll(ADAPTER_SUBJECTS)),
    billing: Object.freeze(prefixAll(BILLING_SUBJECTS)),
    portal: Object.freeze(prefixAll(PORTAL_SUBJECTS)),
    monitors: Object.freeze(prefixAll(MONITOR_SUBJECTS)),
    refundStream: `${streamPrefix}BILLING_REFUNDS`,
    refundConsumer: "billing-refunds",
    noticeStream: `${streamPrefix}NOTICES`,
    noticeConsumer: "portal-notices",
    exports: buildExportSubjects(namespace),
  });
}
