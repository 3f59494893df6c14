/**
 * @module engine/random
 * Randomness for job identifiers and fractional faults: seeded (reproducible runs, `--seed`)
 * or from crypto.getRandomValues.
 */

export interface Random {
  /** A number in [0, 1). */
  next(): number;
  /** `count` random bytes. */
  bytes(count: number): Uint8Array;
}

/** mulberry32: small, fast and good enough for test data; never for secrets. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Bytes drawn from crypto.getRandomValues per refill; one call per ~150 job ids instead of one per id. */
const poolSize = 4096;

/**
 * Unseeded randomness from crypto.getRandomValues, drawn in blocks: each call costs a round
 * trip into the runtime's random source (a tenth of createEvaluation's time when made per
 * job), while handing out slices of one block costs almost nothing. The bytes are the same
 * cryptographic random bytes, only fetched ahead.
 */
function pooledRandom(): Random {
  let pool = new Uint8Array(0);
  let offset = 0;
  const take = (count: number): Uint8Array => {
    if (count > poolSize) return crypto.getRandomValues(new Uint8Array(count));
    if (offset + count > pool.length) {
      pool = crypto.getRandomValues(new Uint8Array(poolSize));
      offset = 0;
    }
    // A copy: callers own what they get, and the pool is reused.
    const bytes = pool.slice(offset, offset + count);
    offset += count;
    return bytes;
  };
  return {
    next: () => {
      const [a, b, c, d] = take(4) as unknown as [number, number, number, number];
      return (((a << 24) | (b << 16) | (c << 8) | d) >>> 0) / 4294967296;
    },
    bytes: take,
  };
}

export function createRandom(options: { seed?: number } = {}): Random {
  if (options.seed === undefined) return pooledRandom();
  const next = mulberry32(options.seed);
  return {
    next,
    bytes: (count) => Uint8Array.from({ length: count }, () => Math.floor(next() * 256)),
  };
}

const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const crockfordCodes = Array.from(crockford, (char) => char.charCodeAt(0));

/** "job_" and 26 Crockford base32 characters (130 random bits): opaque, URL-safe, ≤ 128. */
export function newJobId(random: Random): string {
  const bytes = random.bytes(26);
  const codes = new Array<number>(bytes.length);
  for (let index = 0; index < bytes.length; index += 1) codes[index] = crockfordCodes[bytes[index]! & 31]!;
  // One flat string: appending character by character builds a chain of 27 cons-strings that
  // every Map lookup by this id must flatten, and that a stored job would keep alive.
  return `job_${String.fromCharCode(...codes)}`;
}
