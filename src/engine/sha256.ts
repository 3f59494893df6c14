/**
 * @module engine/sha256
 * SHA-256 of a text as lowercase hex, for request digests and caller fingerprints.
 */

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

/** Lowercase hex SHA-256 of `text` (UTF-8): Node's crypto where it exists, Web Crypto elsewhere. */
export async function sha256Hex(text: string): Promise<string> {
  if (nodeCrypto) return nodeCrypto.createHash('sha256').update(text, 'utf8').digest('hex');
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
  return Array.from(hash, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
