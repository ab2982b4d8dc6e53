/**
 * Billing's word that a key was revoked (`billing.events.key_changed`, the event every gateway drops
 * its cached key on), heard by background work too: monitors and exports stop a revoked key's work
 * within a second (docs/api.md#monitors, docs/api.md#exports). Every replica hears it (no queue
 * group), so the handler must be repeatable. A replica that missed the event learns the same when
 * billing refuses the key's next work debit with `revoked`.
 */
import { decodeJson, keyChangedEventSchema, type Subjects } from "@rda/contracts";
import type { Logger } from "./logger.ts";
import type { NatsConnection } from "./nats.ts";

export interface KeyRevocationWatch {
  stop(): void;
}

export function watchKeyRevocations(deps: {
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  readonly logger: Logger;
  readonly onRevoked: (keyId: string) => Promise<unknown>;
}): KeyRevocationWatch {
  const subscription = deps.nats.subscribe(deps.subjects.billing.keyChanged, {
    callback: (error, message) => {
      if (error) return;
      const event = decodeJson(message.data, keyChangedEventSchema);
      if (!event.ok)
        return deps.logger.warn({ problem: event.error }, "ignored a malformed key_changed event");
      if (event.value.change !== "revoked") return;
      const keyId = event.value.key_id;
      deps
        .onRevoked(keyId)
        .catch((problem: unknown) =>
          deps.logger.error({ err: problem, key_id: keyId }, "could not stop a revoked key's work"),
        );
    },
  });
  return { stop: () => subscription.unsubscribe() };
}
