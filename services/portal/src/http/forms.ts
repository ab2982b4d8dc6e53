/** Reading form fields and query parameters, which arrive as anything: only single strings count. */

export function field(source: unknown, name: string): string | undefined {
  if (typeof source !== "object" || source === null) return undefined;
  const value = (source as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

/** Fixed sentences chosen by a query parameter; a page never echoes the parameter itself. */
export const NOTICES = {
  revoked:
    "The key is revoked. Requests with it are refused within a second, on every server. Its monitors stop and its exports pause for good, and no longer count towards your limits.",
  "logged-out": "You are logged out on this device.",
  "logged-out-everywhere": "You are logged out on every device. Sign in again with a new email link.",
  canceled: "The payment was canceled: nothing was charged.",
  "secret-shown":
    "A new secret is shown only once, and it was shown already. If you did not copy it, rotate the key to get another.",
  "cap-set": "The monthly spend cap is saved. It applies from the next request on.",
  "threshold-saved": "The low-balance threshold is saved for all your keys.",
  "notices-saved": "Your notice choices are saved.",
  "webhook-removed": "The webhook is removed: notices go by email only.",
  "notice-webhook-secret-shown":
    "The webhook's signing secret is shown only once, and it was shown already. If you did not copy it, save the webhook's URL again to get a new one.",
  "test-sent": "A test notice is on its way.",
  "test-queued":
    "A test notice is on its way: emailed, and queued for your webhook. The delivery log below shows each attempt.",
  "notice-redelivering": "The notice is queued again for your webhook, with the same webhook-id.",
  "notice-not-redelivered": "That notice is being sent already, or no longer in the log.",
  "test-limited":
    "No test notice was sent: your account has had its most notices for this hour (test notices count with the optional ones). Try again within the hour.",
  "test-not-sent":
    "The test notice could not be emailed just now (the mail server did not take it). Try again in a minute.",
  "cap-removed": "The monthly spend cap is removed: the key spends until its balance is empty.",
  "monitor-created": "The monitor is created. It collects its backfill first, then follows new items.",
  "monitor-deleted": "The monitor is deleted, with the items it held.",
  "webhook-test-delivered": "The test event was delivered: your receiver accepted it.",
  "webhook-test-failed":
    "The test event was not accepted: the delivery log below says what your receiver answered.",
  "redelivery-queued": "The batch is queued to be sent again, with the same webhook-id.",
  "webhook-secret-shown":
    "The webhook's signing secret is shown only once, and it was shown already. If you did not copy it, rotate the secret to get another.",
} as const;

export function noticeFor(query: unknown): string | undefined {
  const done = field(query, "done");
  return done !== undefined && done in NOTICES ? NOTICES[done as keyof typeof NOTICES] : undefined;
}
