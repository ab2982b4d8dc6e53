/** `q`'s matching lives in @rda/contracts, so the monitors service matches exactly the same way. */
export { createPhraseMatcher, type PhraseMatcher } from "@rda/contracts";
