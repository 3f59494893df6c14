/**
 * @module conformance/stateful/body-changes
 * For "conflicting reuse with a change at every depth of the body": every JSON pointer of a
 * valid body (objects, arrays and leaves, at any depth), and for each one a small change made
 * there alone that keeps the whole body valid against the spec. A server that digests part of
 * the body (the top-level fields only, say) answers a change below that part as a replay; the
 * change is small (one character, one item, one optional property) so that it tests the digest
 * and nothing else, such as a length a server handles badly.
 */
import type { JsonSchema } from '../../openapi/document.js';
import { fullValidValue } from '../generators/mutations.js';

/** Every pointer below the root, parents before their children, in document order. */
export function pointersOf(value: unknown, prefix = ''): string[] {
  const children: [string, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [String(index), item])
    : value && typeof value === 'object'
      ? Object.entries(value as Record<string, unknown>)
      : [];
  return children.flatMap(([name, item]) => {
    const pointer = `${prefix}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    return [pointer, ...pointersOf(item, pointer)];
  });
}

function segmentsOf(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The schema that governs the value at `pointer` (properties and items only; the contract uses no other forms). */
export function schemaAt(schema: JsonSchema, pointer: string): JsonSchema | undefined {
  let current: JsonSchema | undefined = schema;
  for (const segment of segmentsOf(pointer)) {
    if (!current) return undefined;
    const properties = current.properties as Record<string, JsonSchema> | undefined;
    if (properties && segment in properties) current = properties[segment];
    else if (current.items && typeof current.items === 'object') current = current.items as JsonSchema;
    else return undefined;
  }
  return current;
}

/** The value at `pointer`, or undefined. */
export function valueAt(value: unknown, pointer: string): unknown {
  let current = value;
  for (const segment of segmentsOf(pointer)) current = (current as Record<string, unknown> | undefined)?.[segment];
  return current;
}

/** A deep copy of `value` with the value at `pointer` replaced. */
export function replacedAt(value: unknown, pointer: string, replacement: unknown): unknown {
  const copy = structuredClone(value);
  const segments = segmentsOf(pointer);
  const last = segments.pop()!;
  let parent = copy as Record<string, unknown>;
  for (const segment of segments) parent = parent[segment] as Record<string, unknown>;
  parent[last] = replacement;
  return copy;
}

/** Small changes of one value, most local first: the candidates a change at its pointer is picked from. */
function candidatesFor(current: unknown, schema: JsonSchema | undefined): unknown[] {
  if (Array.isArray(current)) {
    const last = current.at(-1);
    return [current.slice(0, -1), [...current, structuredClone(last)], [...current].reverse()];
  }
  if (current && typeof current === 'object') {
    const object = current as Record<string, unknown>;
    const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
    const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
    const removals = Object.keys(object)
      .filter((name) => !required.has(name))
      .map((name) => {
        const { [name]: _removed, ...rest } = object;
        return rest;
      });
    const additions = Object.entries(properties)
      .filter(([name]) => !(name in object))
      .map(([name, propertySchema]) => ({ ...object, [name]: fullValidValue(propertySchema) }));
    return [...removals, ...additions];
  }
  if (Array.isArray(schema?.enum)) return schema.enum.filter((candidate) => candidate !== current);
  if (typeof current === 'string') {
    const head = current.slice(0, -1);
    const replaced = ['0', '1', 'a', 'b', 'x', '-'].map((character) => head + character);
    return [...replaced, `${current}x`, head].filter((candidate) => candidate !== current);
  }
  if (typeof current === 'number') return [current + 1, current - 1];
  if (typeof current === 'boolean') return [!current];
  return [];
}

/**
 * The body with one small change at `pointer` that keeps it valid (`isValid` over the whole
 * body), or undefined when no candidate is valid there.
 */
export function changedAt(options: {
  body: unknown;
  pointer: string;
  schema: JsonSchema;
  isValid: (candidate: unknown) => boolean;
}): unknown {
  const current = valueAt(options.body, options.pointer);
  for (const candidate of candidatesFor(current, schemaAt(options.schema, options.pointer))) {
    const body = replacedAt(options.body, options.pointer, candidate);
    if (options.isValid(body)) return body;
  }
  return undefined;
}
