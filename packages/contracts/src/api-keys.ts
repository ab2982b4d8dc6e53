/** API key format: a recognisable prefix (so leaked keys are easy to scan for) and 256 random bits. */
export const API_KEY_PREFIX = "rdk_";
export const API_KEY_PATTERN = /^rdk_[A-Za-z0-9_-]{43}$/;
/** Matches a key anywhere in a string; used to scrub keys from logs. */
export const API_KEY_ANYWHERE = /rdk_[A-Za-z0-9_-]{20,}/g;
/** Key ids are public handles (CLI, journal, logs); they are never secrets. */
export const KEY_ID_PATTERN = /^key_[0-9a-z]{16}$/;
