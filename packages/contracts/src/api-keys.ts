/** API key format: a recognisable prefix (so leaked keys are easy to scan for) and 256 random bits. */
export const API_KEY_PREFIX = "rdk_";
export const API_KEY_PATTERN = /^rdk_[A-Za-z0-9_-]{43}$/;
/** Matches a key anywhere in a string; used to scrub keys from logs. */
export const API_KEY_ANYWHERE = /rdk_[A-Za-z0-9_-]{20,}/g;
/**
 * The header in which the gateway hands the MCP service, for an OAuth caller, a short-lived internal
 * credential for the caller's key in place of the caller's access token; the MCP service sends it
 * back as its key on the gateway's internal listener, the only place it is accepted.
 */
export const INTERNAL_CREDENTIAL_HEADER = "x-rda-internal-credential";
/** Key ids are public handles (CLI, journal, logs); they are never secrets. */
export const KEY_ID_PATTERN = /^key_[0-9a-z]{16}$/;
/** Accounts of the developer portal own keys; their ids are public handles too. */
export const ACCOUNT_ID_PATTERN = /^acct_[0-9a-z]{16}$/;
/** The SHA-256 of a key, in hex: the only form in which a key is stored or sent between services. */
export const KEY_HASH_PATTERN = /^[0-9a-f]{64}$/;
