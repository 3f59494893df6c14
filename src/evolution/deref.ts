/**
 * @module evolution/deref
 * Following a node's local `$ref`s, so that nodes are compared by what they resolve to and a
 * component moved or renamed is no change. OpenAPI 3.1 lets a reference carry siblings
 * (summary, description, and for schemas any keyword); they are laid over the target, which is
 * exact for wording and close enough for constraints (the diff compares, it does not validate).
 */
import { resolvePointer } from './pointer.js';
import { record, type Side } from './rule.js';

/** Most $ref hops followed for one node: a chain longer than this is a loop. */
const maxHops = 32;

/** The node `value` (at `pointer`) stands for, with its $refs followed. */
export function deref(document: unknown, value: unknown, pointer: string): Side {
  let node = record(value) ?? {};
  let defined: string | undefined;
  let siblings: Record<string, unknown> = {};
  for (let hop = 0; hop < maxHops && typeof node.$ref === 'string'; hop += 1) {
    const { $ref, ...rest } = node;
    const target = resolvePointer(document, $ref);
    // Nearer siblings win over farther ones, as the nearest reference is what the author wrote last.
    siblings = { ...rest, ...siblings };
    if (!target) {
      // Validation checked every $ref; one that names nothing local is kept visible as a keyword.
      node = { $ref };
      break;
    }
    defined = `#${target.pointer}`;
    node = record(target.value) ?? {};
  }
  const merged = Object.keys(siblings).length > 0 ? { ...node, ...siblings } : node;
  return defined === undefined ? { value: merged, pointer } : { value: merged, pointer, defined };
}
