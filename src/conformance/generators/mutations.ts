/**
 * @module conformance/generators/mutations
 * Single-constraint mutations: from a valid value, one value per constraint of the schema that
 * breaks exactly that constraint, and boundary values that sit exactly on a limit and must be
 * accepted. The conformance runner's negative-data checks and the contract drift test both
 * enumerate constraints here, so whatever the spec states is exercised.
 */
import { isUri } from '../../contract/uri.js';
import type { JsonSchema } from '../../openapi/document.js';
import { enumNeighbours, formatNearMisses, patternNearMisses, propertyCaseNearMiss } from './near-misses.js';
import { patternValue, patternValueOf, UngenerableValueError } from './pattern-values.js';
import { typeAllows, withPrimaryType } from './schema-types.js';

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
  /** The limit the value sits on (maxLength, minItems, …). */
  readonly constraint: ConstraintKind;
  readonly description: string;
  readonly value: unknown;
}

const astral = '\u{1F600}';

/** A deterministic valid value with every optional property present, to mutate from. */
export function fullValidValue(given: JsonSchema): unknown {
  if (Array.isArray(given.enum)) return given.enum[0];
  if ('const' in given) return given.const;
  const schema = withPrimaryType(given);
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
    case 'null':
      return null;
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    default:
      return {};
  }
}

function validString(schema: JsonSchema): string {
  if (schema.format === 'uri') return 'https://evidence.example/item';
  // Another format's value is not guessed: one the server refused would be a false failure.
  if (typeof schema.format === 'string') throw new UngenerableValueError(`no value is built for format '${schema.format}'`);
  // A pattern outside the shapes pattern-values.ts builds for throws UngenerableValueError,
  // which the run reports as the probe's checks not judged.
  if (typeof schema.pattern === 'string') return patternValueOf(schema as JsonSchema & { pattern: string });
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

function visit(walk: Walk, given: JsonSchema, value: unknown, path: (string | number)[]): void {
  const at = pointerOf(path);
  // A type list: the value is of its first non-null member, whose constraints are walked; a
  // type mutation to another listed type (null where null is listed) would be a valid value.
  const schema = withPrimaryType(given);
  const mutate = (constraint: ConstraintKind, description: string, replacement: unknown, overMaximum = false) => {
    if (constraint === 'type' && typeAllows(given, replacement)) return;
    walk.mutations.push({
      pointer: at,
      constraint,
      overMaximum,
      description: `${at}: ${description}`,
      value: setAt(walk.root, path, replacement),
    });
  };
  const boundary = (constraint: ConstraintKind, description: string, replacement: unknown) =>
    walk.boundaries.push({ pointer: at, constraint, description: `${at}: ${description}`, value: setAt(walk.root, path, replacement) });
  // null where a value is due: many servers read null as "absent", which an optional property allows.
  const nullInstead = () =>
    mutate(
      'type',
      `null instead of ${schema.type === 'array' ? 'an array' : `a${schema.type === 'object' ? 'n' : ''} ${schema.type}`}`,
      null,
    );

  // A type list: a value of each other member type must be accepted too (null where null is listed).
  if (Array.isArray(given.type)) {
    const members = given.type.map(String);
    for (const member of members.filter((type) => type !== schema.type))
      boundary('type', `a value of type ${member} (type ${members.join(', ')})`, fullValidValue({ ...given, type: member }));
  }

  if (schema.type === 'object') {
    mutate('type', 'an array instead of an object', []);
    nullInstead();
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
      // A known property's name in another letter case, beside it: only a binder that matches
      // names without case (as ASP.NET Core does by default) takes it for the known one.
      const record = value as Record<string, unknown>;
      const known = Object.keys(properties).find((name) => name in record && propertyCaseNearMiss(name, schema));
      const twin = known ? propertyCaseNearMiss(known, schema) : undefined;
      if (known && twin) {
        mutate('additionalProperties', `'${twin}' beside '${known}' (a property name in another letter case)`, {
          ...record,
          [twin]: record[known],
        });
      }
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
    nullInstead();
    if (typeof schema.maxItems === 'number') {
      const max = schema.maxItems;
      mutate(
        'maxItems',
        `${max + 1} items (maxItems ${max})`,
        Array.from({ length: max + 1 }, () => item),
        true,
      );
      boundary(
        'maxItems',
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
      boundary(
        'minItems',
        `exactly ${min} item${min === 1 ? '' : 's'} (minItems ${min})`,
        Array.from({ length: min }, () => item),
      );
    }
    if (list.length > 0) visit(walk, items, list[0], [...path, 0]);
    return;
  }
  if (schema.type === 'string') {
    const text = value as string;
    mutate('type', 'a number instead of a string', 42);
    nullInstead();
    // A `const` is an enum of one.
    const listed = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;
    if (listed) {
      mutate('enum', `'NOT_A_LISTED_VALUE' (enum ${listed.join(', ')})`, 'NOT_A_LISTED_VALUE');
      for (const neighbour of enumNeighbours(text, listed))
        mutate('enum', `'${shown(neighbour.value)}' (enum, ${neighbour.how})`, neighbour.value);
      return;
    }
    // A near miss that also left the length bounds would break two constraints at once.
    const withinLengths = (candidate: string) =>
      lengthOf(candidate) <= ((schema.maxLength as number | undefined) ?? Number.POSITIVE_INFINITY) &&
      lengthOf(candidate) >= ((schema.minLength as number | undefined) ?? 0);
    if (typeof schema.pattern === 'string') {
      for (const nearMiss of patternNearMisses(text, schema.pattern).filter((candidate) => withinLengths(candidate.value)))
        mutate('pattern', `'${shown(nearMiss.value)}' (pattern ${schema.pattern}: ${nearMiss.how})`, nearMiss.value);
    }
    if (typeof schema.format === 'string') {
      const valid = schema.format === 'uri' ? isUri : undefined;
      for (const nearMiss of formatNearMisses(schema.format, valid).filter((candidate) => withinLengths(candidate.value)))
        mutate('format', `'${nearMiss.value}' (format ${schema.format}: ${nearMiss.how})`, nearMiss.value);
    }
    if (typeof schema.maxLength === 'number') {
      const max = schema.maxLength;
      mutate('maxLength', `${max + 1} characters (maxLength ${max})`, ofLength(text, max + 1, schema), true);
      if (!schema.pattern && !schema.format) {
        // Astral characters: exactly max code points but 2×max UTF-16 units.
        boundary('maxLength', `exactly ${max} characters, all astral (maxLength ${max})`, astral.repeat(max));
      }
      const atMax = ofLength(text, max, schema);
      if (atMax !== undefined) boundary('maxLength', `exactly ${max} characters (maxLength ${max})`, atMax);
    }
    if (typeof schema.minLength === 'number' && schema.minLength > 0) {
      const min = schema.minLength;
      mutate('minLength', `${min - 1} characters (minLength ${min})`, ofLength(text, min - 1, schema, true));
      const atMin = typeof schema.pattern === 'string' ? ofLength(text, min, schema) : 'v'.repeat(min);
      if (atMin !== undefined) boundary('minLength', `exactly ${min} characters (minLength ${min})`, atMin);
    }
  }
}

/**
 * A string of exactly `length` code points. Under a pattern, one that still matches it, so a
 * length mutation breaks the length alone (undefined for a boundary when the pattern has no
 * such value: a boundary that broke the pattern would be no valid input). Without a pattern,
 * or for a mutation the pattern cannot fit, `text` padded or cut, as before.
 */
function ofLength(text: string, length: number, schema: JsonSchema): string | undefined;
function ofLength(text: string, length: number, schema: JsonSchema, mutation: true): string;
function ofLength(text: string, length: number, schema: JsonSchema, mutation = false): string | undefined {
  const plain = length < lengthOf(text) ? [...text].slice(0, length).join('') : padTo(text, length, schema);
  if (typeof schema.pattern !== 'string') return plain;
  try {
    return patternValue(schema.pattern, { minLength: length, maxLength: length });
  } catch (error) {
    if (!(error instanceof UngenerableValueError)) throw error;
    return mutation ? plain : undefined;
  }
}

/** A value quoted in a description: its first 16 characters. */
function shown(value: string): string {
  return lengthOf(value) > 16 ? `${[...value].slice(0, 16).join('')}…` : value;
}

/** Pads a valid string to `length` code points, keeping a URI a URI. */
function padTo(text: string, length: number, schema: JsonSchema): string {
  const current = lengthOf(text);
  if (current >= length) return [...text].slice(0, length).join('');
  const filler = schema.format === 'uri' ? 'a' : 'v';
  return text + filler.repeat(length - current);
}
