/**
 * Where an outgoing request to a customer's URL may go: only public unicast addresses. The check
 * runs on the addresses DNS answered, at connect time, on every attempt (delivery.ts gives undici
 * this lookup), so a name that resolves to a private address, or is re-pointed at one after it was
 * saved, is refused all the same. One small file on purpose: other outbound fetches (OAuth metadata)
 * can share it.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";

/** Loopback, private, link-local (cloud metadata at 169.254.169.254), shared, multicast, reserved. */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  BLOCKED.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  BLOCKED.addSubnet(network, prefix, "ipv6");

/** The IPv4 address inside an IPv4-mapped IPv6 one (::ffff:10.0.0.1), else the address itself. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

export function isPublicAddress(address: string): boolean {
  const plain = unmapped(address);
  const family = isIP(plain);
  if (family === 0) return false;
  if (family === 6 && /^::ffff:/i.test(plain)) return false; // mapped but not in dotted form
  return !BLOCKED.check(plain, family === 4 ? "ipv4" : "ipv6");
}

export class BlockedAddressError extends Error {
  readonly code = "EBLOCKEDADDRESS";
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `dns.lookup` for undici's connector that answers only public addresses. `allowLoopback` is the
 * local-development switch: it lets 127.0.0.1 and ::1 through, nothing else.
 */
export function guardedLookup(allowLoopback: boolean) {
  return (hostname: string, options: object, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      const refused = list.find(
        (entry) => !isPublicAddress(entry.address) && !(allowLoopback && isLoopback(entry.address)),
      );
      if (refused || list.length === 0)
        return callback(
          new BlockedAddressError(
            `${hostname} resolves to a non-public address (${refused?.address ?? "none"})`,
          ),
          [],
        );
      const all = (options as { all?: boolean }).all;
      if (all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

function isLoopback(address: string): boolean {
  const plain = unmapped(address);
  return plain === "::1" || /^127\./.test(plain);
}
