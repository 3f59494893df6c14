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

interface NodeCrypto {
  createHash(algorithm: 'sha256'): { update(data: string, encoding: 'utf8'): { digest(encoding: 'hex'): string } };
}

/**
 * Node's own crypto module when the engine runs in Node (20.16+ has process.getBuiltinModule),
 * found at run time so the engine imports nothing from Node and still runs in a browser.
 * Profiling showed crypto.subtle.digest to be the largest single cost of createEvaluation in
 * Node: each call is a promise resolved from the thread pool. createHash is synchronous.
 */
const nodeCrypto: NodeCrypto | undefined = (() => {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    return host?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
  } catch {
    return undefined;
  }
})();

const encoder = new TextEncoder();

/** Lowercase hex SHA-256 of the canonical JSON of `value`: Node's crypto where it exists, Web Crypto elsewhere. */
export async function requestDigest(value: unknown): Promise<string> {
  const text = canonicalJson(value);
  if (nodeCrypto) return nodeCrypto.createHash('sha256').update(text, 'utf8').digest('hex');
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
  return Array.from(hash, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
