/**
 * Telling a monitor's account holder that its delivery stopped, by the one notice path: an event in
 * the notice stream (`publishNoticeEvent`, which waits until the stream holds it, so a notice is not
 * lost while no portal runs) that the portal turns into an email (portal notices/crossing-notices.ts),
 * sent once per crossing however often it is published. Keys made by an operator have no account,
 * so nobody to tell.
 */
import type { NoticeEvent, Result, Subjects } from "@rda/contracts";
import {
  type Logger,
  type NatsConnection,
  publishNoticeEvent,
  type SpendingRefusal,
  tellSpendingPaused,
} from "@rda/service-kit";
import type { DeliveryBilling } from "./delivery-billing.ts";

export interface DeliveryNotices {
  /** The monitor paused: its batch `crossing` failed for good. */
  failing(keyId: string, monitorId: string, crossing: string): Promise<void>;
  /** The monitor paused for lack of credits, or at the key's monthly cap, as billing refused. */
  outOfCredits(keyId: string, monitorId: string, crossing: string, refusal: SpendingRefusal): Promise<void>;
}

export function natsDeliveryNotices(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  billing: DeliveryBilling;
  logger: Logger;
}): DeliveryNotices {
  const logged = (monitorId: string, kind: NoticeEvent["kind"], published: Result<void>) => {
    if (published.ok) deps.logger.info({ monitor_id: monitorId, kind }, "monitor delivery notice published");
    else
      deps.logger.error(
        { monitor_id: monitorId, kind, error: published.error },
        "monitor notice not published",
      );
  };
  const failing = async (keyId: string, monitorId: string, crossing: string) => {
    const owner = await deps.billing.owner(keyId);
    if (owner?.account_id == null) return;
    const event: NoticeEvent = {
      kind: "webhook_failing",
      key_id: keyId,
      account_id: owner.account_id,
      crossing,
      balance: Math.max(0, owner.balance),
      what: `Monitor ${monitorId}`,
    };
    logged(monitorId, event.kind, await publishNoticeEvent(deps.nats, deps.subjects, event));
  };
  return {
    failing,
    async outOfCredits(keyId, monitorId, crossing, refusal) {
      const pause = { what: `Monitor ${monitorId}`, crossing };
      logged(
        monitorId,
        "spending_paused",
        await tellSpendingPaused(deps.nats, deps.subjects, keyId, refusal, pause),
      );
    },
  };
}
