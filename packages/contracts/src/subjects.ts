/**
 * Every NATS name the services use, built in one place. A namespace prefix lets tests (and several
 * stacks sharing one NATS) run side by side without seeing each other's traffic.
 */

const ADAPTER_SUBJECTS = {
  listPosts: "adapter.posts.list",
  listComments: "adapter.comments.list",
  getCommentTree: "adapter.tree.get",
  searchSubreddits: "adapter.subreddits.search",
  getSubredditRules: "adapter.subreddits.rules",
  getUserProfile: "adapter.users.get",
} as const;

const BILLING_SUBJECTS = {
  lookupKey: "billing.keys.lookup",
  debit: "billing.debit",
  balance: "billing.balance",
  createKey: "billing.keys.create",
  showKey: "billing.keys.show",
  revokeKey: "billing.keys.revoke",
  topUp: "billing.keys.topup",
  verifyLedger: "billing.ledger.verify",
  /** Fan-out event (no queue group): every gateway drops the revoked key from its cache. */
  keyRevoked: "billing.events.key_revoked",
  /** JetStream subject of refund messages; deduplicated by request id. */
  refunds: "billing.refunds",
} as const;

export type AdapterOperation = keyof typeof ADAPTER_SUBJECTS;
export type BillingSubject = keyof typeof BILLING_SUBJECTS;

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
  /** JetStream stream holding refund messages. */
  readonly refundStream: string;
  /** Durable consumer that billing replicas share, so each refund is handled by one of them. */
  readonly refundConsumer: string;
}

const NAMESPACE = /^[A-Za-z0-9_-]{1,32}$/;

export function buildSubjects(namespace = ""): Subjects {
  if (namespace !== "" && !NAMESPACE.test(namespace)) {
    throw new Error(`NATS namespace must match ${NAMESPACE}, got '${namespace}'`);
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
    refundStream: `${streamPrefix}BILLING_REFUNDS`,
    refundConsumer: "billing-refunds",
  });
}
