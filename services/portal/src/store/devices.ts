/**
 * Known browsers: a browser that signed in with an emailed link gets a long-lived device cookie (a
 * random id; Redis keeps only its SHA-256, naming the hash of the address it signed in to). When
 * that browser asks for a link to the same address again, the mail limits treat it as the owner's
 * (store/mail-limits.ts): a flood of requests for the address from elsewhere does not stop it. The
 * cookie proves only that this browser once received mail at the address; it signs nobody in.
 */
import type { StoreContext } from "./context.ts";
import { newSecretToken, SECRET_TOKEN_PATTERN, sha256 } from "./secrets.ts";

/** How long a browser stays known after its last sign-in. */
export const DEVICE_TTL_SECONDS = 180 * 24 * 3_600;

export interface DeviceStore {
  /**
   * Remembers that the browser holding `deviceId` (or a new id, when it has none or an unknown one)
   * signed in to `email`; returns the id for its cookie.
   */
  remember(deviceId: string | undefined, email: string): Promise<string>;
  /** The id to count this browser's link requests for `email` by, when it signed in to it before. */
  knownFor(deviceId: string | undefined, email: string): Promise<string | undefined>;
}

export function createDeviceStore(context: StoreContext): DeviceStore {
  const { redis, keys } = context;
  const wellFormed = (id: string | undefined): id is string =>
    id !== undefined && SECRET_TOKEN_PATTERN.test(id);
  return {
    async remember(deviceId, email) {
      const id = wellFormed(deviceId) ? deviceId : newSecretToken();
      await redis.set(keys.knownDevice(sha256(id)), sha256(email), "EX", DEVICE_TTL_SECONDS);
      return id;
    },
    async knownFor(deviceId, email) {
      if (!wellFormed(deviceId)) return undefined;
      const hash = sha256(deviceId);
      return (await redis.get(keys.knownDevice(hash))) === sha256(email) ? hash : undefined;
    },
  };
}
