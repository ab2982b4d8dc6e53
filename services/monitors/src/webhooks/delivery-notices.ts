/**
 * Telling a monitor's account holder that its delivery stopped, by the one notice path: an event on
 * `billing.events.notice` that the portal turns into an email (portal notices/crossing-notices.ts),
 * sent once per crossing however often it is published. Keys made by an operator have no account,
 * so nobody to tell.
 */
import type { NoticeEvent, Subjects } from "@rda/contracts";
import type { Logger, NatsConnection } from "@rda/service-kit";
import type { DeliveryBilling } from "./delivery-billing.ts";

export interface DeliveryNotices {
  /** The monitor paused: its batch `crossing` failed for good. */
  failing(keyId: string, monitorId: string, crossing: string): Promise<void>;
  /** The monitor paused for lack of credits (or the key's monthly cap). */
  outOfCredits(keyId: string, monitorId: string, crossing: string): Promise<void>;
}

export function natsDeliveryNotices(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  billing: DeliveryBilling;
  logger: Logger;
}): DeliveryNotices {
  const publish = async (kind: NoticeEvent["kind"], keyId: string, monitorId: string, crossing: string) => {
    const owner = await deps.billing.owner(keyId);
    if (owner?.account_id == null) return;
    const event: NoticeEvent = {
      kind,
      key_id: keyId,
      account_id: owner.account_id,
      crossing,
      balance: Math.max(0, owner.balance),
      what: `Monitor ${monitorId}`,
    };
    deps.nats.publish(deps.subjects.billing.notice, JSON.stringify(event));
    deps.logger.info({ monitor_id: monitorId, kind }, "monitor delivery notice published");
  };
  return {
    failing: (keyId, monitorId, crossing) => publish("webhook_failing", keyId, monitorId, crossing),
    outOfCredits: (keyId, monitorId, crossing) => publish("spending_paused", keyId, monitorId, crossing),
  };
}
