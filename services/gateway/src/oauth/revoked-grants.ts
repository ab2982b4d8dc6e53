/**
 * Grants a person ended in the developer portal (its `portal.events.grant_revoked` event, fanned
 * out to every gateway): their access tokens are refused from then on, not only once they expire.
 * An entry is kept until the grant's last access token has expired anyway. A gateway that was away
 * when an event was sent refuses the grant at most when its tokens expire (minutes), since the portal
 * no longer refreshes them.
 */
import { decodeJson, grantRevokedEventSchema, type Subjects } from "@rda/contracts";
import type { Logger, NatsConnection } from "@rda/service-kit";

export interface RevokedGrants {
  has(grantId: string): boolean;
  stop(): void;
}

export function watchRevokedGrants(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  logger: Logger;
  now?: () => number;
}): RevokedGrants {
  const now = deps.now ?? (() => Date.now() / 1000);
  const revoked = new Map<string, number>();
  const forgetExpired = () => {
    for (const [grantId, expiresAt] of revoked) if (expiresAt <= now()) revoked.delete(grantId);
  };
  const subscription = deps.nats.subscribe(deps.subjects.portal.grantRevoked, {
    callback: (error, message) => {
      if (error) return;
      const event = decodeJson(message.data, grantRevokedEventSchema);
      if (!event.ok)
        return deps.logger.warn({ problem: event.error }, "ignored a malformed grant_revoked event");
      forgetExpired();
      revoked.set(event.value.grant_id, event.value.expires_at);
    },
  });
  return {
    has: (grantId) => (revoked.get(grantId) ?? 0) > now(),
    stop: () => subscription.unsubscribe(),
  };
}
