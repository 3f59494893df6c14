/**
 * @module documents/address-guard
 * The one address policy (docs/assumptions.md ): which addresses a URL a user or an
 * agent hands in may reach, judged on addresses, never on the URL's spelling. WHATWG URL
 * parsing first turns `http://2130706433/`, `http://0x7f.1/` or `http://0177.0.0.1/` into
 * 127.0.0.1; every name is looked up and refused if any of its addresses is refused
 * (`connectGuard(policy).lookup`), a literal is judged before connecting, and the socket's remote
 * address is judged again once connected (`connectGuard(policy).wrap`), so a name that resolves
 * elsewhere the second time (DNS rebinding) is still caught. IPv4 carried in IPv6 (mapped
 * `::ffff:127.0.0.1`, translated `::ffff:0:127.0.0.1`, compatible `::7f00:1`, NAT64
 * `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`) is judged as the IPv4 address it carries.
 *
 * The classes, and the flag that opens each (`AddressPolicy`):
 * - `loopback` (127/8, ::1), `unspecified` (0/8, ::: a connection to it reaches this machine) and
 *   `this-machine` (any address of this machine's own interfaces, read from
 *   os.networkInterfaces() at most a second old): `allowLoopback` (--allow-loopback);
 * - `private` (10/8, 172.16/12, 192.168/16), `link-local` (169.254/16, cloud metadata included,
 *   fe80::/10, fec0::/10), `shared` (100.64/10, carrier-grade NAT), `unique-local` (fc00::/7):
 *   `allowPrivate` (--allow-private);
 * - `reserved` (multicast, documentation, benchmarking, IETF assignments, 240/4, discard):
 *   never reached; `public`: always allowed.
 */
import { type LookupAddress, lookup } from 'node:dns';
import { isIP, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Which non-public classes of address may be reached. Both false: the strict policy. */
export interface AddressPolicy {
  /** This machine: loopback, unspecified and its own interface addresses (--allow-loopback). */
  readonly allowLoopback: boolean;
  /** Private, link-local, shared (CGNAT) and unique-local networks (--allow-private). */
  readonly allowPrivate: boolean;
}

/** Public unicast addresses only: what a `$ref` or an agent's URL may reach unless a flag says more. */
export const strictAddressPolicy: AddressPolicy = Object.freeze({ allowLoopback: false, allowPrivate: false });

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'unspecified'
  | 'this-machine'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'unique-local'
  | 'reserved'
  | 'not-an-address';

/** IPv4 ranges and their class: [first address, prefix length, class]. */
const v4Ranges: readonly (readonly [string, number, AddressClass])[] = [
  ['0.0.0.0', 8, 'unspecified'], // "this network": a connection to it reaches this machine
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'], // cloud metadata services (169.254.169.254)
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'reserved'], // multicast
  ['240.0.0.0', 4, 'reserved'], // reserved, broadcast
];

/** IPv6 ranges classed in their own right (those carrying IPv4 are judged by that address first). */
const v6Ranges: readonly (readonly [string, number, AddressClass])[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'reserved'], // discard
  ['2001::', 23, 'reserved'], // IETF protocol assignments (Teredo included)
  ['2001:db8::', 32, 'reserved'], // documentation
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'link-local'], // site-local (deprecated)
  ['ff00::', 8, 'reserved'], // multicast
];

function v4Bytes(address: string): number[] | undefined {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) return undefined;
  return parts.map(Number);
}

/** The 16 bytes of an IPv6 address (with an embedded dotted quad or not, a zone or not), or undefined. */
function v6Bytes(address: string): number[] | undefined {
  let text = bare(address);
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

/** An address without URL brackets or an IPv6 zone (`%eth0`). */
function bare(address: string): string {
  return address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
}

function inRange(bytes: readonly number[], first: readonly number[], prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit += 1) {
    const mask = 0x80 >> (bit % 8);
    if ((bytes[bit >> 3]! & mask) !== (first[bit >> 3]! & mask)) return false;
  }
  return true;
}

const nat64 = v6Bytes('64:ff9b::')!;
const nat64Local = v6Bytes('64:ff9b:1::')!;

/**
 * The address as the bytes that decide its class: 4 for IPv4 and for IPv6 carrying IPv4, else
 * 16. `::` and `::1` are kept as IPv6 (as compatible addresses they would read 0.0.0.0, 0.0.0.1:
 * the same class, but named in IPv6's own words).
 */
function effectiveBytes(address: string): number[] | undefined {
  const text = bare(address);
  const family = isIP(text);
  if (family === 4) return v4Bytes(text);
  if (family !== 6) return undefined;
  const bytes = v6Bytes(text);
  if (!bytes) return undefined;
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12); // IPv4-mapped
  if (zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12)) return bytes.slice(12); // IPv4-translated (SIIT)
  if (zeros(0, 12) && !zeros(12, 15)) return bytes.slice(12); // IPv4-compatible (`::7f00:1`)
  if (zeros(0, 12) && bytes[15]! > 1) return bytes.slice(12); // `::0.0.0.2` and up: 0/8
  if (inRange(bytes, nat64, 96) || inRange(bytes, nat64Local, 48)) return bytes.slice(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6); // 6to4
  return bytes;
}

const interfaceCacheMs = 1000;
let interfaceCache: { readAt: number; keys: Set<string> } | undefined;

/** This machine's own interface addresses, as effective-byte keys, read at most `interfaceCacheMs` ago. */
function ownAddressKeys(): Set<string> {
  const now = Date.now();
  if (interfaceCache && now - interfaceCache.readAt < interfaceCacheMs) return interfaceCache.keys;
  const keys = new Set<string>();
  try {
    for (const entries of Object.values(networkInterfaces()))
      for (const entry of entries ?? []) {
        const bytes = effectiveBytes(entry.address);
        if (bytes) keys.add(bytes.join('.'));
      }
  } catch {
    // No interfaces to read (a sandbox): loopback and the ranges still hold.
  }
  interfaceCache = { readAt: now, keys };
  return keys;
}

/** The class of `address` (an IP address as a socket, a resolver or a URL's host gives it). */
export function addressClass(address: string): AddressClass {
  const bytes = effectiveBytes(address);
  if (!bytes) return 'not-an-address';
  const ranges = bytes.length === 4 ? v4Ranges : v6Ranges;
  const ranged = ranges.find(([first, prefix]) => inRange(bytes, bytes.length === 4 ? v4Bytes(first)! : v6Bytes(first)!, prefix))?.[2];
  if (ranged === 'loopback' || ranged === 'unspecified') return ranged;
  // An address of this machine's own is this machine, whatever range it lies in.
  if (ownAddressKeys().has(bytes.join('.'))) return 'this-machine';
  return ranged ?? 'public';
}

const classWords: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'a loopback address (this machine)',
  unspecified: 'an unspecified address (0.0.0.0/8 or ::, which reaches this machine)',
  'this-machine': "one of this machine's own interface addresses",
  private: 'a private-network address (10/8, 172.16/12, 192.168/16)',
  'link-local': 'a link-local address (169.254/16, where cloud metadata services answer, or fe80::/10)',
  shared: 'a shared (carrier-grade NAT) address (100.64/10)',
  'unique-local': 'a unique-local IPv6 address (fc00::/7)',
  reserved: 'a multicast, documentation or reserved address, which is never reached',
  'not-an-address': 'not an IP address',
};

/** The flag that opens a class, or undefined for one no flag opens. */
export function flagFor(kind: AddressClass): '--allow-loopback' | '--allow-private' | undefined {
  if (kind === 'loopback' || kind === 'unspecified' || kind === 'this-machine') return '--allow-loopback';
  if (kind === 'private' || kind === 'link-local' || kind === 'shared' || kind === 'unique-local') return '--allow-private';
  return undefined;
}

/** A class the policy refuses: which one, in words, and the flag that would open it. */
export interface AddressRefusal {
  readonly kind: Exclude<AddressClass, 'public'>;
  /** "a loopback address (this machine); --allow-loopback opens it" */
  readonly reason: string;
}

/** Why `policy` refuses `address`, or undefined when it may be reached. */
export function addressRefusal(address: string, policy: AddressPolicy = strictAddressPolicy): AddressRefusal | undefined {
  const kind = addressClass(address);
  if (kind === 'public') return undefined;
  const flag = flagFor(kind);
  if (flag === '--allow-loopback' && policy.allowLoopback) return undefined;
  if (flag === '--allow-private' && policy.allowPrivate) return undefined;
  return { kind, reason: flag ? `${classWords[kind]}; ${flag} opens it` : classWords[kind] };
}

/**
 * Why `address` may not be reached under `policy` (default strict), or undefined. Anything
 * unreadable is refused.
 */
export function refusedAddressReason(address: string, policy: AddressPolicy = strictAddressPolicy): string | undefined {
  return addressRefusal(address, policy)?.reason;
}

/**
 * Whether `host` names this machine only, for a decision that loosens a rule when it does: the
 * mock needs no control token when it listens on such a host (mock-server.ts), a Host header
 * naming it cannot come from DNS rebinding (control-guard.ts), the proxy answers to the loopback
 * names when it listens on one (proxy/targets.ts). A narrow reading, the opposite of the outbound
 * guard's wide one (`addressClass`, where any doubt refuses): only `localhost`, a dotted-decimal
 * IPv4 address in 127/8, `::1` in any spelling and an IPv4-mapped `::ffff:127.x.y.z`, with
 * brackets or a zone or not, any case. Anything else, a name that might resolve to loopback, an
 * unspecified address (0.0.0.0 listens on every interface) or this machine's own interface
 * addresses (reachable from the network) included, is not.
 */
export function isLoopbackHostName(host: string): boolean {
  const name = bare(host).toLowerCase();
  if (name === 'localhost') return true;
  const family = isIP(name);
  if (family === 4) return v4Bytes(name)?.[0] === 127;
  if (family !== 6) return false;
  const bytes = v6Bytes(name);
  if (!bytes) return false;
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  if (zeros(0, 15) && bytes[15] === 1) return true; // ::1
  return zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff && bytes[12] === 127; // ::ffff:127.x.y.z
}

/** Whether `host` (a URL's hostname, brackets or not) is an IP literal rather than a name. */
export function isAddressLiteral(host: string): boolean {
  return isIP(bare(host)) !== 0;
}

/** A connection the policy refuses, naming the address it would have reached and why. */
export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
  readonly code = 'ERR_REFUSED_ADDRESS';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type GuardedLookup = (hostname: string, options: { all?: boolean; family?: number } | number, callback: LookupCallback) => void;

/**
 * A `lookup` for net.connect under `policy`: the name's addresses, refused all together when any
 * of them is refused (a name that resolves to both a public and a loopback address is not a
 * public name).
 */
export function guardedLookupFor(policy: AddressPolicy): GuardedLookup {
  return (hostname, options, callback) => {
    const wanted = typeof options === 'number' ? { family: options } : options;
    lookup(hostname, { family: wanted.family ?? 0, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses
        .map((entry) => ({ entry, refusal: addressRefusal(entry.address, policy) }))
        .find(({ refusal }) => refusal !== undefined);
      if (refused || addresses.length === 0)
        return callback(
          new RefusedAddressError(
            refused ? `${hostname} resolves to ${refused.entry.address}, ${refused.refusal!.reason}` : `${hostname} resolves to no address`,
          ),
          [],
        );
      if (wanted.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** An undici-style connector, named structurally so this module needs no HTTP client. */
export type Connector = (
  options: { readonly hostname: string; readonly port?: string | number; readonly protocol?: string },
  callback: (error: Error | null, socket: Socket | null) => void,
) => void;

/**
 * What holds every connection of a client to one policy: give `lookup` to the connector's
 * builder (undici `buildConnector({ lookup })`) and wrap the built connector with `wrap`. The
 * outbound client (src/http) and the document fetcher both take one; the policy is the caller's.
 */
export interface ConnectGuard {
  readonly policy: AddressPolicy;
  readonly lookup: GuardedLookup;
  /** `connector` with a literal host judged before connecting and the socket's remote address once connected. */
  wrap<C extends Connector>(connector: C): C;
}

/** The connect guard of `policy`. */
export function connectGuard(policy: AddressPolicy): ConnectGuard {
  return {
    policy,
    lookup: guardedLookupFor(policy),
    wrap<C extends Connector>(connector: C): C {
      const guarded: Connector = (options, callback) => {
        // A literal address skips the lookup: judged here before connecting, and again once connected.
        if (isAddressLiteral(options.hostname)) {
          const refusal = addressRefusal(options.hostname, policy);
          if (refusal) return callback(new RefusedAddressError(`${options.hostname} is ${refusal.reason}`), null);
        }
        connector(options, (error, socket) => {
          if (error || !socket) return callback(error ?? new Error('no socket'), null);
          const remote = socket.remoteAddress ?? '';
          const refusal = addressRefusal(remote, policy);
          if (refusal) {
            socket.destroy();
            return callback(
              new RefusedAddressError(`${options.hostname} connected to ${remote || 'an unknown address'}, ${refusal.reason}`),
              null,
            );
          }
          callback(null, socket);
        });
      };
      return guarded as C;
    },
  };
}

/** The RefusedAddressError behind `error` (itself, or its cause as undici wraps it), if any. */
export function refusedAddressIn(error: unknown): RefusedAddressError | undefined {
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth += 1)
    if (current instanceof RefusedAddressError) return current;
  return undefined;
}

/** A URL's host refused before any connection: what it is, and the flag that would open it. */
export interface HostRefusal {
  /** "127.0.0.1 is a loopback address (this machine)", "db.internal resolves to 10.0.0.5, a private-network address …" */
  readonly message: string;
  readonly flag: '--allow-loopback' | '--allow-private' | undefined;
}

/**
 * Why `policy` refuses the host of a URL (a literal, or any address a name resolves to now), or
 * undefined when it may be reached or does not resolve (the connection then says so). A check
 * before any work, for a precise message: the connection's own check (`connectGuard`) is still
 * the door, since a name may resolve elsewhere the second time.
 */
export async function hostRefusal(hostname: string, policy: AddressPolicy): Promise<HostRefusal | undefined> {
  const host = bare(hostname);
  const judged = (address: string, said: string): HostRefusal | undefined => {
    const refusal = addressRefusal(address, policy);
    return refusal ? { message: `${said} ${classWords[refusal.kind]}`, flag: flagFor(refusal.kind) } : undefined;
  };
  if (isAddressLiteral(host)) return judged(host, `${hostname} is`);
  const addresses = await new Promise<LookupAddress[]>((resolve) =>
    lookup(host, { all: true }, (error, found) => resolve(error ? [] : found)),
  );
  for (const { address } of addresses) {
    const refused = judged(address, `${hostname} resolves to ${address},`);
    if (refused) return refused;
  }
  return undefined;
}
