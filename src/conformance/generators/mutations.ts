/**
 * @module conformance/generators/mutations
 * Single-constraint mutations: from a valid value, one value per constraint of the schema that
 * breaks exactly that constraint, and boundary values that sit exactly on a limit and must be
 * accepted. The conformance runner's negative-data checks and the contract drift test both
 * enumerate constraints here, so whatever the spec states is exercised.
 */
import type { JsonSchema } from '../../openapi/document.js';

export type ConstraintKind =
  | 'type'
  | 'required'
  | 'additionalProperties'
  | 'enum'
  | 'pattern'
  | 'format'
  | 'minLength'
  | 'maxLength'
  | 'minItems'
  | 'maxItems';

export interface Mutation {
  /** JSON Pointer of the value the mutation touches. */
  readonly pointer: string;
  readonly constraint: ConstraintKind;
  /** True when the value breaks a maximum (the contract's 413 on createEvaluation). */
  readonly overMaximum: boolean;
  /** What was done, for reports: "evidence/0/id: 257 characters (maxLength 256)". */
  readonly description: string;
  /** The whole mutated value. */
  readonly value: unknown;
}

export interface Boundary {
  readonly pointer: string;
  readonly description: string;
  readonly value: unknown;
}

const astral = '\u{1F600}';

/** A deterministic valid value with every optional property present, to mutate from. */
export function fullValidValue(schema: JsonSchema): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      const result: Record<string, unknown> = {};
      for (const [name, property] of Object.entries((schema.properties as Record<string, JsonSchema>) ?? {})) {
        result[name] = fullValidValue(property);
      }
      return result;
    }
    case 'array': {
      const count = Math.max(1, (schema.minItems as number | undefined) ?? 0);
      return Array.from({ length: count }, () => fullValidValue((schema.items as JsonSchema) ?? {}));
    }
    case 'string':
      return validString(schema);
    default:
      return {};
  }
}

function validString(schema: JsonSchema): string {
  if (schema.format === 'uri') return 'https://evidence.example/item';
  if (typeof schema.pattern === 'string') {
    // The patterns of this contract are fixed-width character classes; a generic pattern
    // needs a generator, so fail loudly rather than guess.
    const fixed = /^\^\[([^\]]+)\]\{(\d+)\}\$$/.exec(schema.pattern);
    if (!fixed) throw new Error(`mutations: cannot build a value for pattern ${schema.pattern}`);
    const first = (fixed[1] ?? 'a')[0] ?? 'a';
    return first.repeat(Number(fixed[2]));
  }
  return 'v'.repeat(Math.max(1, (schema.minLength as number | undefined) ?? 0));
}

function setAt(root: unknown, path: readonly (string | number)[], value: unknown, remove = false): unknown {
  if (path.length === 0) return value;
  const copy: any = Array.isArray(root) ? [...root] : { ...(root as object) };
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (rest.length === 0) {
    if (remove) delete copy[head];
    else copy[head] = value;
  } else {
    copy[head] = setAt(copy[head], rest, value, remove);
  }
  return copy;
}

function pointerOf(path: readonly (string | number)[]): string {
  return `/${path.map((part) => String(part).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
}

function lengthOf(value: string): number {
  return [...value].length;
}

interface Walk {
  readonly mutations: Mutation[];
  readonly boundaries: Boundary[];
  readonly root: unknown;
}

/** Every single-constraint mutation of `base` (default: fullValidValue(schema)). */
export function mutationsOf(schema: JsonSchema, base: unknown = fullValidValue(schema)): Mutation[] {
  const walk: Walk = { mutations: [], boundaries: [], root: base };
  visit(walk, schema, base, []);
  return walk.mutations;
}

/** Values exactly on each limit (at a maximum, at a minimum), which must be accepted. */
export function boundariesOf(schema: JsonSchema, base: unknown = fullValidValue(schema)): Boundary[] {
  const walk: Walk = { mutations: [], boundaries: [], root: base };
  visit(walk, schema, base, []);
  return walk.boundaries;
}

function visit(walk: Walk, schema: JsonSchema, value: unknown, path: (string | number)[]): void {
  const at = pointerOf(path);
  const mutate = (constraint: ConstraintKind, description: string, replacement: unknown, overMaximum = false) =>
    walk.mutations.push({
      pointer: at,
      constraint,
      overMaximum,
      description: `${at}: ${description}`,
      value: setAt(walk.root, path, replacement),
    });
  const boundary = (description: string, replacement: unknown) =>
    walk.boundaries.push({ pointer: at, description: `${at}: ${description}`, value: setAt(walk.root, path, replacement) });

  if (schema.type === 'object') {
    mutate('type', 'an array instead of an object', []);
    const properties = (schema.properties as Record<string, JsonSchema>) ?? {};
    for (const name of (schema.required as string[]) ?? []) {
      walk.mutations.push({
        pointer: pointerOf([...path, name]),
        constraint: 'required',
        overMaximum: false,
        description: `${pointerOf([...path, name])}: required property removed`,
        value: setAt(walk.root, [...path, name], undefined, true),
      });
    }
    if (schema.additionalProperties === false) {
      mutate('additionalProperties', "an unknown property 'unexpectedProperty'", { ...(value as object), unexpectedProperty: 'x' });
    }
    for (const [name, property] of Object.entries(properties)) {
      visit(walk, property, (value as Record<string, unknown>)[name], [...path, name]);
    }
    return;
  }
  if (schema.type === 'array') {
    const items = (schema.items as JsonSchema) ?? {};
    const list = value as unknown[];
    const item = list[0] ?? fullValidValue(items);
    mutate('type', 'a string instead of an array', 'not-an-array');
    if (typeof schema.maxItems === 'number') {
      const max = schema.maxItems;
      mutate(
        'maxItems',
        `${max + 1} items (maxItems ${max})`,
        Array.from({ length: max + 1 }, () => item),
        true,
      );
      boundary(
        `exactly ${max} items (maxItems ${max})`,
        Array.from({ length: max }, () => item),
      );
    }
    if (typeof schema.minItems === 'number' && schema.minItems > 0) {
      const min = schema.minItems;
      mutate(
        'minItems',
        `${min - 1} items (minItems ${min})`,
        Array.from({ length: min - 1 }, () => item),
      );
    }
    if (list.length > 0) visit(walk, items, list[0], [...path, 0]);
    return;
  }
  if (schema.type === 'string') {
    const text = value as string;
    mutate('type', 'a number instead of a string', 42);
    if (Array.isArray(schema.enum)) {
      mutate('enum', `'NOT_A_LISTED_VALUE' (enum ${schema.enum.join(', ')})`, 'NOT_A_LISTED_VALUE');
      return;
    }
    if (typeof schema.pattern === 'string') {
      const pattern = new RegExp(schema.pattern, 'u');
      const candidate =
        [text.toUpperCase(), `${text}!`, `!${text.slice(1)}`].find((option) => !pattern.test(option) && option.length === text.length) ??
        [text.toUpperCase(), `${text}!`].find((option) => !pattern.test(option));
      if (candidate !== undefined) mutate('pattern', `'${candidate.slice(0, 16)}…' (pattern ${schema.pattern})`, candidate);
    }
    if (schema.format === 'uri') {
      mutate('format', "'not a uri' (format uri)", 'not a uri');
    }
    if (typeof schema.maxLength === 'number') {
      const max = schema.maxLength;
      mutate('maxLength', `${max + 1} characters (maxLength ${max})`, padTo(text, max + 1, schema), true);
      if (!schema.pattern && !schema.format) {
        // Astral characters: exactly max code points but 2×max UTF-16 units.
        boundary(`exactly ${max} characters, all astral (maxLength ${max})`, astral.repeat(max));
      }
      boundary(`exactly ${max} characters (maxLength ${max})`, padTo(text, max, schema));
    }
    if (typeof schema.minLength === 'number' && schema.minLength > 0) {
      const min = schema.minLength;
      mutate('minLength', `${min - 1} characters (minLength ${min})`, text.slice(0, min - 1));
      boundary(`exactly ${min} characters (minLength ${min})`, 'v'.repeat(min));
    }
  }
}

/** Pads a valid string to `length` code points, keeping a URI a URI. */
function padTo(text: string, length: number, schema: JsonSchema): string {
  const current = lengthOf(text);
  if (current >= length) return [...text].slice(0, length).join('');
  const filler = schema.format === 'uri' ? 'a' : 'v';
  return text + filler.repeat(length - current);
}
