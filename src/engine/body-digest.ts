/**
 * @module engine/body-digest
 * A digest of a request body's bytes for the client judge, which only asks whether two bodies
 * one caller sent are the same bytes. It is never shown, stored with a job or compared across
 * callers, so it needs no cryptographic strength: two 32-bit FNV-1a lanes over the bytes, in
 * plain JavaScript (synchronous, the same in a browser), where SHA-256 through Web Crypto cost a
 * promise from Node's thread pool on every create. A chance collision (about 1 in 2^64 per pair
 * compared) could only hide one finding.
 */

/** 16 hex digits: FNV-1a of the bytes, and FNV-1a of the bytes with another offset basis and the length mixed in. */
export function bodyDigest(bytes: Uint8Array): string {
  let first = 0x811c9dc5;
  let second = 0x01000193 ^ bytes.length;
  for (let index = 0; index < bytes.length; index += 1) {
    const byte = bytes[index]!;
    first = Math.imul(first ^ byte, 0x01000193);
    second = Math.imul(second ^ byte, 0x5bd1e995);
  }
  return (first >>> 0).toString(16).padStart(8, '0') + (second >>> 0).toString(16).padStart(8, '0');
}
