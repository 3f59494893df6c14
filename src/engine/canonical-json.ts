/**
 * @module engine/canonical-json
 * The request digest behind idempotency (docs/assumptions.md A-5): SHA-256 over the RFC 8785
 * JSON Canonicalization Scheme serialisation of the parsed body, as lowercase hex.
 */

/**
 * RFC 8785 serialisation of a value parsed from JSON. Object members are sorted by their
 * names' UTF-16 code units (plain `<` on JS strings), numbers use ECMAScript's shortest
 * round-trip form (which JSON.stringify already produces), strings JSON.stringify's escaping.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const names = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const members = names.map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
  return `{${members.join(',')}}`;
}

/** Lowercase hex SHA-256 of the canonical JSON of `value` (Web Crypto, so it runs anywhere). */
export async function requestDigest(value: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(value));
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(hash, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
