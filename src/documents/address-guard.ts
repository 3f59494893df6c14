/**
 * @module documents/address-guard
 * Which addresses a remote `$ref` may reach (docs/assumptions.md A-31): public unicast only,
 * never loopback, private, link-local, shared, unspecified, multicast or reserved, in any
 * spelling. The check is made on addresses, not on the URL's text: WHATWG URL parsing first turns
 * `http://2130706433/`, `http://0x7f.1/` or `http://0177.0.0.1/` into 127.0.0.1, every name is
 * looked up and refused if any of its addresses is refused (`guardedLookup`), and the socket's
 * remote address is checked again once connected (`connector`), so a name that resolves
 * elsewhere the second time, or a literal that skipped the lookup, is still caught. IPv4 carried
 * in IPv6 (mapped `::ffff:127.0.0.1`, which URL writes `[::ffff:7f00:1]`, compatible `::7f00:1`,
 * NAT64 `64:ff9b::`, 6to4 `2002::/16`) is judged as the IPv4 address it carries.
 */
import { type LookupAddress, lookup } from 'node:dns';
import { isIP } from 'node:net';

/** IPv4 ranges no reference may reach: [first address, prefix length]. */
const refusedV4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 included
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

/** IPv6 ranges refused in their own right (those carrying IPv4 are judged by that address). */
const refusedV6: readonly (readonly [string, number])[] = [
  ['::', 128],
  ['::1', 128],
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo included)
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

function v4Bytes(address: string): number[] | undefined {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) return undefined;
  return parts.map(Number);
}

/** The 16 bytes of an IPv6 address (with an embedded dotted quad or not), or undefined. */
function v6Bytes(address: string): number[] | undefined {
  let text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = v4Bytes(dotted[1]!);
    if (!v4) return undefined;
    text = `${text.slice(0, dotted.index)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string) => (half === '' ? [] : half.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (all.some((group) => !/^[0-9a-f]{1,4}$/i.test(group))) return undefined;
  return all.flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

function inRange(bytes: readonly number[], first: readonly number[], prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit += 1) {
    const mask = 0x80 >> (bit % 8);
    if ((bytes[bit >> 3]! & mask) !== (first[bit >> 3]! & mask)) return false;
  }
  return true;
}

function refusedV4Bytes(bytes: readonly number[]): boolean {
  return refusedV4.some(([first, prefix]) => inRange(bytes, v4Bytes(first)!, prefix));
}

/**
 * Why `address` (an IP address as a socket or a resolver gives it) may not be reached by a
 * reference, or undefined when it is a public unicast address. Anything unreadable is refused.
 */
export function refusedAddressReason(address: string): string | undefined {
  const family = isIP(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  if (family === 4) return refusedV4Bytes(v4Bytes(address)!) ? 'a loopback, private, link-local or reserved IPv4 address' : undefined;
  const bytes = family === 6 ? v6Bytes(address) : undefined;
  if (!bytes) return 'not an IP address';
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const carried =
    zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff
      ? bytes.slice(12) // IPv4-mapped
      : zeros(0, 12)
        ? bytes.slice(12) // IPv4-compatible, :: and ::1 included
        : inRange(bytes, v6Bytes('64:ff9b::')!, 96)
          ? bytes.slice(12) // NAT64
          : bytes[0] === 0x20 && bytes[1] === 0x02
            ? bytes.slice(2, 6) // 6to4
            : undefined;
  if (carried && refusedV4Bytes(carried)) return 'an IPv6 address that carries a loopback, private or reserved IPv4 address';
  if (refusedV6.some(([first, prefix]) => inRange(bytes, v6Bytes(first)!, prefix)))
    return 'a loopback, unique-local, link-local, multicast or reserved IPv6 address';
  return undefined;
}

/** A connection a remote reference may not make, with the address it would have reached. */
export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
  readonly code = 'ERR_REFUSED_ADDRESS';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect: the name's addresses, refused all together when any of them is
 * refused (a name that resolves to both a public and a loopback address is not a public name).
 */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number } | number, callback: LookupCallback): void {
  const wanted = typeof options === 'number' ? { family: options } : options;
  lookup(hostname, { family: wanted.family ?? 0, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((entry) => refusedAddressReason(entry.address) !== undefined);
    if (refused || addresses.length === 0)
      return callback(
        new RefusedAddressError(
          `${hostname} resolves to ${refused?.address ?? 'no address'}: ${refused ? refusedAddressReason(refused.address) : 'nothing to connect to'}`,
        ),
        [],
      );
    if (wanted.all) return callback(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}
