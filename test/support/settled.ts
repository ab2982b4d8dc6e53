/**
 * Until what the requests answered so far were charged is final: no debit pending in the ledger
 * (each is settled or refunded) and no refund waiting in its queue. A charge that was never to be
 * made is then shown not made by the balance alone.
 */

import type { Subjects } from "@rda/contracts";
import { jetstreamManager, type NatsConnection, type Redis, type RedisKeys } from "@rda/service-kit";
import { waitFor } from "@rda/service-kit/testing";

export interface Ledger {
  readonly redis: Redis;
  readonly keys: RedisKeys;
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
}

export async function waitForSettled(ledger: Ledger, timeoutMs = 30_000): Promise<void> {
  const { redis, keys, nats, subjects } = ledger;
  await waitFor(
    async () => {
      if ((await redis.zcard(keys.pendingDebits)) > 0) return false;
      // Just after a NATS node died, the JetStream API may miss an answer while the stream
      // elects its leader: that is asked again, not taken for an answer.
      const consumer = await jetstreamManager(nats)
        .then((jsm) => jsm.consumers.info(subjects.refundStream, subjects.refundConsumer))
        .catch(() => undefined);
      return consumer !== undefined && consumer.num_pending === 0 && consumer.num_ack_pending === 0;
    },
    "no pending debit and no refund waiting",
    timeoutMs,
  );
}
