/** What the portal's own stores need: Redis, the portal's key names and a clock tests can move. */
import type { PortalRedisKeys, Redis } from "@rda/service-kit";

export interface StoreContext {
  readonly redis: Redis;
  readonly keys: PortalRedisKeys;
  /** Epoch milliseconds. */
  readonly now: () => number;
}
