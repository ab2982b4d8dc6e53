/**
 * Every error a person can meet in the portal, in one catalog: status, title and the sentence that
 * says what happened and what to do. Pages render it; the JSON endpoint sends `{error}` with the
 * same status and sentence. The catalog code goes to the log.
 */

export const PAGE_ERRORS = {
  bad_request: {
    status: 400,
    title: "That request could not be read",
    message: "Go back, reload the page and try again.",
  },
  sign_in_required: {
    status: 401,
    title: "Please sign in",
    message:
      "Sign in first: ask for a sign-in link on the sign-in page, or send the key's own secret in the x-api-key header.",
  },
  csrf: {
    status: 403,
    title: "This form has expired",
    message:
      "For your safety a form works only from a page of this site opened in this browser. Go back, reload the page and send the form again.",
  },
  not_found: {
    status: 404,
    title: "Not found",
    message: "There is no such page here, or no such key in your account.",
  },
  method_not_allowed: {
    status: 405,
    title: "Not allowed",
    message: "That action cannot be done from this address. Use the buttons on the pages.",
  },
  payload_too_large: {
    status: 413,
    title: "Too much data",
    message: "That form sent more data than it may. Go back and shorten what you typed.",
  },
  oauth_pkce_required: {
    status: 400,
    title: "This app's sign-in request cannot be used",
    message:
      "The app did not protect its request with PKCE (code_challenge with code_challenge_method=S256), which this service requires. Nothing was shared with the app; it needs an update to connect.",
  },
  oauth_request_expired: {
    status: 400,
    title: "This connection request has expired",
    message:
      "It is more than an hour old, or was opened in another browser. Go back to the app and connect again; open the sign-in email in this same browser.",
  },
  mail_limit_address: {
    status: 429,
    title: "Too many emails to this address",
    message:
      "We have sent several links to this address in the last hour. Use the newest one, or wait before asking again.",
  },
  mail_limit_client: {
    status: 429,
    title: "Too many requests from your network",
    message:
      "Too many sign-in emails were requested from your network in the last hour. Wait before asking again.",
  },
  auth_failures_throttled: {
    status: 429,
    title: "Too many wrong keys",
    message:
      "Too many requests with a malformed, unknown or revoked API key came from this address. Wait before trying again.",
  },
  mail_unavailable: {
    status: 503,
    title: "We could not send the email",
    message: "Our mail server did not accept the message just now. Nothing was sent; try again in a minute.",
  },
  store_unavailable: {
    status: 503,
    title: "The portal is out of reach for a moment",
    message: "We cannot reach our storage just now. Nothing was changed; try again in a minute.",
  },
  billing_unavailable: {
    status: 503,
    title: "Your keys are out of reach for a moment",
    message: "The key service did not answer. Nothing was changed; try again in a minute.",
  },
  exports_unavailable: {
    status: 503,
    title: "The exports service did not answer",
    message: "Nothing was changed and nothing was charged. Try again in a minute.",
  },
  monitors_unavailable: {
    status: 503,
    title: "Your monitors are out of reach for a moment",
    message: "The monitors service did not answer. Nothing was changed; try again in a minute.",
  },
  payments_unavailable: {
    status: 503,
    title: "The payment service did not answer",
    message: "Nothing was charged. Try again in a minute.",
  },
  internal: {
    status: 500,
    title: "Something went wrong on our side",
    message: "It is not your fault, and it has been logged. Try again in a minute.",
  },
} as const;

export type PageErrorCode = keyof typeof PAGE_ERRORS;
