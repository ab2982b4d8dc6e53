/**
 * Where an outgoing request to a customer's URL may go: the service kit's one outbound guard
 * (@rda/service-kit, outbound-guard.ts), under the names this package has always exported.
 * Deliveries go through the kit's safeFetch (delivery.ts), so webhooks and every other outbound
 * fetch follow the same rule: public addresses only after DNS, no redirects, a deadline, a size cap.
 */
import { BlockedAddressError, isPublicAddress, publicOnlyLookup } from "@rda/service-kit";

export { BlockedAddressError, isPublicAddress };

/**
 * A `dns.lookup` that answers only public addresses. `allowLoopback` is the local-development
 * switch: it lets 127.0.0.1 and ::1 through, nothing else.
 */
export function guardedLookup(allowLoopback: boolean) {
  return publicOnlyLookup({ allowLoopback });
}
