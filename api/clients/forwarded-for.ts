/**
 * The client's address behind a load balancer. `TRUSTED_PROXIES` lists the proxies (IP addresses
 * and CIDR ranges) whose `X-Forwarded-For` is believed; by default none is, and every client is its
 * socket's address. From a trusted peer, the client is the rightmost address of the header that is
 * not itself a trusted proxy: every address left of it was written by the client (or by proxies
 * nobody vouches for) and is ignored. A header that cannot be read there counts as absent: the
 * client is then the socket's peer, and the caller logs why. HAProxy's `option forwardfor` appends
 * exactly one such header line (deploy/, docs/deployment.md).
 */
import { BlockList, isIP, isIPv4 } from "node:net";

/** Hops examined from the right before a header counts as malformed (a chain is never this long). */
export const MAX_FORWARDED_HOPS = 16;

export interface TrustedProxies {
  readonly entries: readonly string[];
  /** Whether `address` (IPv4, IPv6 or IPv4-mapped IPv6) is one of the trusted proxies. */
  has(address: string): boolean;
}

/** An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, as a dual-stack socket reports IPv4 peers) as its IPv4 address. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped && isIPv4(mapped[1]!) ? mapped[1]! : address;
}

/** Parses `a.b.c.d`, `a.b.c.d/nn`, an IPv6 address or range; throws naming a bad entry (a configuration error). */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = "", prefix, extra] = entry.split("/");
    const family = isIP(address);
    const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix);
    const valid =
      family !== 0 &&
      extra === undefined &&
      (prefix === undefined || /^\d{1,3}$/.test(prefix)) &&
      bits <= (family === 4 ? 32 : 128);
    if (!valid) throw new Error(`TRUSTED_PROXIES: ${JSON.stringify(entry)} is not an IP address or CIDR range`);
    list.addSubnet(address, bits, family === 4 ? "ipv4" : "ipv6");
  }
  return {
    entries: [...entries],
    has(address) {
      const plain = unmapped(address);
      const family = isIP(plain);
      return family !== 0 && list.check(plain, family === 4 ? "ipv4" : "ipv6");
    },
  };
}

/** TRUSTED_PROXIES: a comma-separated list, empty by default (trust nobody). */
export function trustedProxiesFromEnv(env: NodeJS.ProcessEnv = process.env): TrustedProxies {
  return trustedProxies(
    (env.TRUSTED_PROXIES ?? "")
      .split(",")
      .map((e) => e.trim())
      .filter((e) => e !== ""),
  );
}

export type ForwardedClient = { address: string; malformed?: never } | { address: string; malformed: string };

/**
 * The address a request comes from: `peer` (the socket's) unless it is a trusted proxy that sent
 * `X-Forwarded-For`; then the rightmost forwarded address that is not a trusted proxy (when every
 * one is, the leftmost). `malformed` says why the header was not used.
 */
export function forwardedClient(peer: string, header: string | undefined, trusted: TrustedProxies): ForwardedClient {
  if (header === undefined || !trusted.has(peer)) return { address: peer };
  const hops = header.split(",").map((hop) => hop.trim());
  let leftmost = peer;
  for (let i = hops.length - 1, seen = 0; i >= 0; i--, seen++) {
    if (seen === MAX_FORWARDED_HOPS)
      return { address: peer, malformed: `more than ${MAX_FORWARDED_HOPS} trusted hops` };
    const hop = hops[i]!;
    if (isIP(hop) === 0)
      return { address: peer, malformed: hop === "" ? "an empty hop" : "a hop that is not an IP address" };
    if (!trusted.has(hop)) return { address: unmapped(hop) };
    leftmost = unmapped(hop);
  }
  return { address: leftmost };
}
