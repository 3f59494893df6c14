/**
 * @module evolution/pointer
 * JSON pointers (RFC 6901) into a document: building them for locations, and following the
 * local `$ref`s of a bundled OpenAPI document. Isomorphic.
 */

/** `base` with one more segment, escaped (`~` → `~0`, `/` → `~1`). */
export function pointerJoin(base: string, ...segments: readonly (string | number)[]): string {
  let pointer = base;
  for (const segment of segments) pointer += `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`;
  return pointer;
}

/**
 * The value a local `$ref` (`#/components/schemas/Job`) names in `document`, or undefined when
 * it names nothing there or is not local. The fragment is percent-decoded first (RFC 6901 §6).
 */
export function resolvePointer(document: unknown, ref: string): { value: unknown; pointer: string } | undefined {
  if (!ref.startsWith('#')) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === '') return { value: document, pointer: '' };
  if (!fragment.startsWith('/')) return undefined;
  let value: unknown = document;
  for (const raw of fragment.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return { value, pointer: fragment };
}
