/**
 * @module engine/caller
 * Who is calling (docs/assumptions.md A-10): the Authorization header's value identifies the
 * caller, but the engine keeps and shows only a fingerprint of it. A mock on a developer's
 * laptop must never hand a bearer token to whoever reads its control API or its memory, and a
 * 15 KB credential must not cost 15 KB per stored job.
 */
import { sha256Hex } from './sha256.js';

/** The caller of every request without an Authorization header. */
export const anonymousCaller = 'anonymous';

/** `sha256:` and 128 bits of the header's SHA-256 in hex: one value per credential, none of it readable. */
export async function callerFingerprint(authorization: string | null): Promise<string> {
  if (authorization === null || authorization === '') return anonymousCaller;
  return `sha256:${(await sha256Hex(authorization)).slice(0, 32)}`;
}
