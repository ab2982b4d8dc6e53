/**
 * The one rule for outgoing requests to addresses a customer or a stranger chose (an OAuth
 * client's metadata document, notice and monitor webhooks): they must never reach the service's
 * own network. safe-fetch.ts applies it to every such request; @rda/webhooks delivers through
 * safeFetch and re-exports these names.
 *
 * - https only, no credentials in the URL;
 * - the host's addresses are checked *after* DNS resolution and the connection goes to the checked
 *   address (no second lookup an attacker's DNS could answer differently): loopback, private,
 *   link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254 included), shared, reserved,
 *   multicast and documentation ranges are refused, and their IPv6 equivalents (only global unicast
 *   2000::/3 passes), and IPv4 addresses written as IPv6 (IPv4-mapped, NAT64, 6to4);
 * - a refused address is refused before any connection is opened.
 *
 * Two development switches, never for production: `allowLoopback` lets plain http to 127.0.0.1,
 * ::1 and localhost through and nothing else (local webhook receivers); `allowPrivateAddresses`
 * turns the address check and the https rule off (tests against local servers).
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/** Why an outgoing request was not made, or not finished. */
export class OutgoingRequestRefused extends Error {
  override readonly name = "OutgoingRequestRefused";
}

/** DNS answered an address that is not public: trying again cannot help. */
export class BlockedAddressError extends OutgoingRequestRefused {
  readonly code = "EBLOCKEDADDRESS";
}

const NOT_PUBLIC_V4: readonly [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];
/** Inside 2000::/3, the global unicast block, these are not public hosts either. */
const NOT_PUBLIC_V6: readonly [string, number][] = [
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["3fff::", 20],
];

const blocked = new BlockList();
for (const [address, prefix] of NOT_PUBLIC_V4) blocked.addSubnet(address, prefix, "ipv4");
for (const [address, prefix] of NOT_PUBLIC_V6) blocked.addSubnet(address, prefix, "ipv6");

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tails included), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/^\[|\]$/g, "");
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const octets = dotted[1]!.split(".").map(Number);
    const high = ((octets[0]! << 8) | octets[1]!).toString(16);
    const low = ((octets[2]! << 8) | octets[3]!).toString(16);
    text = `${text.slice(0, -dotted[1]!.length)}${high}:${low}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const fill = tail === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array(fill).fill("0"), ...right].map((group) => Number.parseInt(group, 16));
  return groups.length === 8 && groups.every((group) => group >= 0 && group <= 0xffff) ? groups : undefined;
}

const v4From = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/** True when `address` (an IP literal) is a public unicast host address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address.replace(/^\[|\]$/g, ""));
  if (family === 4) return !blocked.check(address, "ipv4") && address !== "255.255.255.255";
  if (family !== 6) return false;
  const groups = ipv6Groups(address);
  if (!groups) return false;
  // IPv4 written as IPv6: mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) are judged as IPv4.
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  if (mapped || nat64) return isPublicAddress(v4From(groups[6]!, groups[7]!));
  // Only global unicast (2000::/3): this leaves out ::, ::1, fc00::/7 (fd00:ec2::254 too), fe80::/10…
  if ((groups[0]! & 0xe000) !== 0x2000) return false;
  return !blocked.check(groups.map((group) => group.toString(16)).join(":"), "ipv6");
}

/** 127.0.0.0/8 and ::1, however written (IPv4-mapped included). */
export function isLoopbackAddress(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, "");
  if (isIP(plain) === 4) return plain.startsWith("127.");
  const groups = ipv6Groups(plain);
  if (!groups) return false;
  if (groups.slice(0, 7).every((group) => group === 0) && groups[7] === 1) return true;
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  return mapped && groups[6]! >> 8 === 127;
}

/**
 * A DNS lookup that fails (BlockedAddressError) when any address of the name is not public; with
 * `allowLoopback`, loopback addresses pass too.
 */
export function publicOnlyLookup(options: { allowLoopback?: boolean } = {}): LookupFunction {
  const allowed = (address: string) =>
    isPublicAddress(address) || (options.allowLoopback === true && isLoopbackAddress(address));
  return (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, found) => {
      const addresses = found as LookupAddress[] | undefined;
      if (error || !addresses) return callback(error, "", 0);
      const refused = addresses.find((entry) => !allowed(entry.address));
      if (refused || addresses.length === 0) {
        const refusal = new BlockedAddressError(
          `${hostname} resolves to an address that is not public (${refused?.address ?? "none"})`,
        );
        return callback(refusal as unknown as NodeJS.ErrnoException, "", 0);
      }
      if (lookupOptions.all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/**
 * Names that always mean this machine (RFC 6761): `localhost`, any name under it, with or without
 * the root's trailing dot. Refused by name, before DNS, wherever a customer's URL is checked.
 */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** The development switches of outgoing requests (see the module comment). */
export interface OutgoingSwitches {
  readonly allowPrivateAddresses?: boolean;
  readonly allowLoopback?: boolean;
}

/** Checks what can be checked before any connection; throws OutgoingRequestRefused. */
export function checkOutgoingUrl(target: string | URL, switches: boolean | OutgoingSwitches = false): URL {
  const { allowPrivateAddresses = false, allowLoopback = false } =
    typeof switches === "boolean" ? { allowPrivateAddresses: switches } : switches;
  const url = URL.parse(String(target));
  if (!url) throw new OutgoingRequestRefused("not a URL");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const loopbackHost = isLocalhostName(host) || (isIP(host) !== 0 && isLoopbackAddress(host));
  const plainAllowed = allowPrivateAddresses || (allowLoopback && loopbackHost);
  if (url.protocol !== "https:" && !(plainAllowed && url.protocol === "http:")) {
    throw new OutgoingRequestRefused("only https URLs are fetched");
  }
  if (url.username || url.password) throw new OutgoingRequestRefused("URLs with credentials are not fetched");
  if (allowPrivateAddresses || (allowLoopback && loopbackHost)) return url;
  // An address literal never reaches DNS, so it is judged here; `localhost` is refused by name.
  if ((isIP(host) !== 0 && !isPublicAddress(host)) || isLocalhostName(host))
    throw new BlockedAddressError(`${host} is not a public address`);
  return url;
}
