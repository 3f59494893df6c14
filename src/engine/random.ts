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

export function createRandom(options: { seed?: number } = {}): Random {
  if (options.seed === undefined) {
    return {
      next: () => crypto.getRandomValues(new Uint32Array(1))[0]! / 4294967296,
      bytes: (count) => crypto.getRandomValues(new Uint8Array(count)),
    };
  }
  const next = mulberry32(options.seed);
  return {
    next,
    bytes: (count) => Uint8Array.from({ length: count }, () => Math.floor(next() * 256)),
  };
}

const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** "job_" and 26 Crockford base32 characters (130 random bits): opaque, URL-safe, ≤ 128. */
export function newJobId(random: Random): string {
  const bytes = random.bytes(26);
  let id = 'job_';
  for (const byte of bytes) id += crockford[byte & 31];
  return id;
}
