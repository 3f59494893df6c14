/**
 * @module engine/canonical-json
 * The request digest behind idempotency (docs/assumptions.md A-5): SHA-256 over the RFC 8785
 * JSON Canonicalization Scheme serialisation of the parsed body, as lowercase hex.
 */
import { sha256Hex } from './sha256.js';

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
  // Loops and one string rather than map/join: this runs on every createEvaluation.
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index += 1) text += (index === 0 ? '' : ',') + canonicalJson(value[index]);
    return `${text}]`;
  }
  // The default sort compares UTF-16 code units, exactly RFC 8785's order, without a comparator call per pair.
  const names = Object.keys(value).sort();
  let text = '{';
  for (let index = 0; index < names.length; index += 1) {
    const name = names[index]!;
    text += `${index === 0 ? '' : ','}${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`;
  }
  return `${text}}`;
}

/** Lowercase hex SHA-256 of the canonical JSON of `value`: Node's crypto where it exists, Web Crypto elsewhere. */
export async function requestDigest(value: unknown): Promise<string> {
  return sha256Hex(canonicalJson(value));
}
