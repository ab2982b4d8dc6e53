/**
 * Telling a monitor's account holder that its delivery stopped, by the one notice path: an event in
 * the notice stream (`publishNoticeEvent`, which waits until the stream holds it, so a notice is not
 * lost while no portal runs) that the portal turns into an email (portal notices/crossing-notices.ts),
 * sent once per crossing however often it is published. Keys made by an operator have no account,
 * so nobody to tell.
 */
import type { NoticeEvent, Subjects } from "@rda/contracts";
import { type Logger, type NatsConnection, publishNoticeEvent } from "@rda/service-kit";
import type { DeliveryBilling } from "./delivery-billing.ts";

export interface DeliveryNotices {
  /** The monitor paused: its batch `crossing` failed for good. */
  failing(keyId: string, monitorId: string, crossing: string): Promise<void>;
  /** The monitor paused for lack of credits, or at the key's monthly cap (`atCap`). */
  outOfCredits(keyId: string, monitorId: string, crossing: string, atCap: boolean): Promise<void>;
}

export function natsDeliveryNotices(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  billing: DeliveryBilling;
  logger: Logger;
}): DeliveryNotices {
  const publish = async (
    kind: NoticeEvent["kind"],
    keyId: string,
    monitorId: string,
    crossing: string,
    atCap = false,
  ) => {
    const owner = await deps.billing.owner(keyId);
    if (owner?.account_id == null) return;
    const event: NoticeEvent = {
      kind,
      key_id: keyId,
      account_id: owner.account_id,
      crossing,
      balance: Math.max(0, owner.balance),
      what: `Monitor ${monitorId}`,
      // The month's spend says the pause is the cap's (the portal's notice names it).
      ...(atCap && owner.month_spend && { month_spend: owner.month_spend }),
    };
    const published = await publishNoticeEvent(deps.nats, deps.subjects, event);
    if (published.ok) deps.logger.info({ monitor_id: monitorId, kind }, "monitor delivery notice published");
    else
      deps.logger.error(
        { monitor_id: monitorId, kind, error: published.error },
        "monitor notice not published",
      );
  };
  return {
    failing: (keyId, monitorId, crossing) => publish("webhook_failing", keyId, monitorId, crossing),
    outOfCredits: (keyId, monitorId, crossing, atCap) =>
      publish("spending_paused", keyId, monitorId, crossing, atCap),
  };
}
