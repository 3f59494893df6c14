/**
 * @module engine/local-refs
 * Resolves a document's local `$ref`s (`#/components/…`) in place of the objects they name, so
 * the engine can take a document a browser test imported as JSON. A `$ref` into another file
 * is refused: in Node, `loadContract` bundles those before the engine sees the document.
 * A reference cycle stays a cycle of objects; whoever walks the result bounds its depth.
 */

type Json = Record<string, unknown>;

/** Decodes one JSON Pointer token (RFC 6901). */
const unescapeToken = (token: string) => decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~');

export function resolveLocalRefs(document: unknown): unknown {
  const resolved = new Map<object, unknown>();

  function target(ref: string): unknown {
    if (!ref.startsWith('#')) throw new Error(`$ref ${ref.slice(0, 200)} points outside the document; bundle it first`);
    let node: unknown = document;
    for (const token of ref.slice(1).split('/').slice(1)) {
      if (!node || typeof node !== 'object') throw new Error(`$ref ${ref.slice(0, 200)} names nothing in the document`);
      node = (node as Json)[unescapeToken(token)];
    }
    if (node === undefined) throw new Error(`$ref ${ref.slice(0, 200)} names nothing in the document`);
    return node;
  }

  function visit(node: unknown, seen: Set<string>): unknown {
    if (!node || typeof node !== 'object') return node;
    const done = resolved.get(node);
    if (done !== undefined) return done;
    const ref = (node as Json).$ref;
    if (typeof ref === 'string') {
      // A chain of references that comes back to itself names no schema at all.
      if (seen.has(ref)) throw new Error(`$ref ${ref.slice(0, 200)} refers to itself`);
      return visit(target(ref), new Set(seen).add(ref));
    }
    const copy: Json | unknown[] = Array.isArray(node) ? [] : {};
    // Registered before the children are visited, so a cycle through properties ends here.
    resolved.set(node, copy);
    for (const [key, value] of Object.entries(node)) (copy as Json)[key] = visit(value, new Set());
    return copy;
  }

  return visit(document, new Set());
}
