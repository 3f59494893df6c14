/**
 * @module contract/schema-to-zod
 * A JSON Schema of an OpenAPI 3.1 document (already dereferenced) as a zod schema built from
 * the same parts the hand-written schemas use: code-point lengths (text.ts), strict objects for
 * `additionalProperties: false`, RFC 3986 URIs. So a document the mock is given validates
 * requests with the messages and the 400/413 split of the bundled contract, and it runs in a
 * browser under a strict Content-Security-Policy (zod needs no `eval` when it cannot have it).
 *
 * What it does not know it refuses at start, naming where: a mock that silently accepted what
 * the document forbids would pass clients that the service refuses.
 */
import * as z from 'zod';
import { schemaBudgetProblem } from './document-budget.js';
import { boundedText } from './text.js';
import { isUri } from './uri.js';

type JsonSchema = Readonly<Record<string, unknown>>;

/** A keyword or shape this converter cannot honour, with the JSON pointer where it sits. */
export class UnsupportedSchemaError extends Error {
  override readonly name = 'UnsupportedSchemaError';
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(`${pointer || '(schema root)'}: ${message}`);
  }
}

/** Keywords that say nothing about what is valid. */
const annotations = new Set([
  'title',
  'description',
  'example',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
  '$schema',
  '$id',
  '$anchor',
  'externalDocs',
  'xml',
  'discriminator',
  'contentMediaType',
  'contentEncoding',
]);

/** Keywords each converter below reads; anything else (that is not an annotation or an x- extension) is refused. */
const understood = new Set([
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'oneOf',
  'anyOf',
  'allOf',
]);

/** Deepest nesting converted: documents are input, and a hostile one must not exhaust the stack. */
const maxDepth = 64;

/** A pattern in words where it has a plain reading, as a developer would say it. */
export function describePattern(pattern: string): string {
  const hex = /^\^\[0-9a-f\]\{(\d+)\}\$$/.exec(pattern);
  if (hex) return `must be ${hex[1]} lowercase hex characters`;
  return `must match the pattern ${pattern}`;
}

const pointerPart = (part: string) => part.replaceAll('~', '~0').replaceAll('/', '~1');

function number(schema: JsonSchema, key: string, pointer: string): number | undefined {
  const value = schema[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new UnsupportedSchemaError(`${pointer}/${key}`, 'must be a number');
  return value;
}

function typesOf(schema: JsonSchema, pointer: string): string[] {
  const type = schema.type;
  if (type === undefined) return [];
  const list = Array.isArray(type) ? type : [type];
  for (const entry of list) {
    if (!['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'].includes(entry as string)) {
      throw new UnsupportedSchemaError(`${pointer}/type`, `unknown type ${JSON.stringify(entry)}`);
    }
  }
  return list as string[];
}

function stringSchema(schema: JsonSchema, pointer: string, context: Context): z.ZodType {
  const min = number(schema, 'minLength', pointer);
  const max = number(schema, 'maxLength', pointer);
  let result: z.ZodString =
    max !== undefined
      ? boundedText(min === undefined || min === 0 ? { max } : { min, max })
      : min !== undefined
        ? boundedText({ min, max: Number.MAX_SAFE_INTEGER })
        : z.string();
  // Shown to zod's JSON Schema output (the drift tests), which cannot read a refinement.
  const shown: { pattern?: string; format?: string } = {};
  if (schema.pattern !== undefined) {
    if (typeof schema.pattern !== 'string') throw new UnsupportedSchemaError(`${pointer}/pattern`, 'must be a string');
    // Never JavaScript's RegExp: a document's pattern such as (a+)+$ backtracks for seconds on
    // a crafted request value. The caller matches in linear time (engine/patterns).
    // `params.constraint` names the keyword for the engine's conditions (a refinement's issue names none).
    result = result.refine(context.pattern(schema.pattern, `${pointer}/pattern`), {
      message: describePattern(schema.pattern),
      params: { constraint: 'pattern' },
    });
    shown.pattern = schema.pattern;
  }
  // Formats other than uri are annotations in OpenAPI 3.1 (JSON Schema 2020-12): not asserted.
  if (schema.format === 'uri') {
    result = result.refine(isUri, { message: 'must be an absolute URI (RFC 3986)', params: { constraint: 'format' } });
    shown.format = 'uri';
  }
  return Object.keys(shown).length === 0 ? result : result.meta(shown);
}

function numberSchema(schema: JsonSchema, pointer: string, integer: boolean): z.ZodType {
  let result = integer ? z.number().int() : z.number();
  const minimum = number(schema, 'minimum', pointer);
  const maximum = number(schema, 'maximum', pointer);
  const exclusiveMinimum = number(schema, 'exclusiveMinimum', pointer);
  const exclusiveMaximum = number(schema, 'exclusiveMaximum', pointer);
  if (minimum !== undefined) result = result.gte(minimum);
  if (maximum !== undefined) result = result.lte(maximum);
  if (exclusiveMinimum !== undefined) result = result.gt(exclusiveMinimum);
  if (exclusiveMaximum !== undefined) result = result.lt(exclusiveMaximum);
  return result;
}

function objectSchema(schema: JsonSchema, pointer: string, depth: number, context: Context): z.ZodType {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  if (typeof properties !== 'object' || properties === null) throw new UnsupportedSchemaError(`${pointer}/properties`, 'must be an object');
  const required = new Set((schema.required ?? []) as string[]);
  const shape: Record<string, z.ZodType> = {};
  for (const [name, property] of Object.entries(properties)) {
    const converted = convert(property, `${pointer}/properties/${pointerPart(name)}`, depth + 1, context);
    shape[name] = required.has(name) ? converted : converted.optional();
  }
  for (const name of required) {
    if (!(name in shape)) shape[name] = z.unknown().refine((value) => value !== undefined, { message: 'is required' });
  }
  const additional = schema.additionalProperties;
  if (additional === false) return z.strictObject(shape);
  if (additional === undefined || additional === true) return z.looseObject(shape);
  return z.object(shape).catchall(convert(additional as JsonSchema, `${pointer}/additionalProperties`, depth + 1, context));
}

function arraySchema(schema: JsonSchema, pointer: string, depth: number, context: Context): z.ZodType {
  if (Array.isArray(schema.items)) throw new UnsupportedSchemaError(`${pointer}/items`, 'tuple items are not supported (use prefixItems)');
  let result = z.array(
    schema.items === undefined ? z.unknown() : convert(schema.items as JsonSchema, `${pointer}/items`, depth + 1, context),
  );
  const min = number(schema, 'minItems', pointer);
  const max = number(schema, 'maxItems', pointer);
  if (min !== undefined) result = result.min(min);
  if (max !== undefined) result = result.max(max);
  return result;
}

function literalSchema(values: readonly unknown[], pointer: string): z.ZodType {
  if (values.length === 0) throw new UnsupportedSchemaError(`${pointer}/enum`, 'must list at least one value');
  if (values.every((value) => typeof value === 'string')) return z.enum(values as [string, ...string[]]);
  const literals = values.map((value) => {
    if (value !== null && typeof value === 'object')
      throw new UnsupportedSchemaError(`${pointer}/enum`, 'object and array values are not supported');
    return z.literal(value as string | number | boolean | null);
  });
  return literals.length === 1 ? literals[0]! : z.union(literals as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]);
}

function typed(schema: JsonSchema, type: string, pointer: string, depth: number, context: Context): z.ZodType {
  switch (type) {
    case 'string':
      return stringSchema(schema, pointer, context);
    case 'number':
      return numberSchema(schema, pointer, false);
    case 'integer':
      return numberSchema(schema, pointer, true);
    case 'boolean':
      return z.boolean();
    case 'null':
      return z.null();
    case 'object':
      return objectSchema(schema, pointer, depth, context);
    default:
      return arraySchema(schema, pointer, depth, context);
  }
}

function convert(schema: JsonSchema | boolean, pointer: string, depth: number, context: Context): z.ZodType {
  if (depth > maxDepth) throw new UnsupportedSchemaError(pointer, `nested more than ${maxDepth} levels deep`);
  if (schema === true) return z.unknown();
  if (schema === false) return z.never();
  if (typeof schema !== 'object' || schema === null) throw new UnsupportedSchemaError(pointer, 'is not a schema');
  for (const key of Object.keys(schema)) {
    if (!understood.has(key) && !annotations.has(key) && !key.startsWith('x-')) {
      throw new UnsupportedSchemaError(`${pointer}/${pointerPart(key)}`, `the keyword ${key} is not supported by the mock`);
    }
  }
  for (const combiner of ['oneOf', 'anyOf', 'allOf'] as const) {
    const branches = schema[combiner];
    if (branches === undefined) continue;
    if (!Array.isArray(branches) || branches.length === 0)
      throw new UnsupportedSchemaError(`${pointer}/${combiner}`, 'must be a non-empty list');
    const rest = { ...schema };
    delete rest[combiner];
    const converted = branches.map((branch, index) => convert(branch as JsonSchema, `${pointer}/${combiner}/${index}`, depth + 1, context));
    const own = Object.keys(rest).some((key) => understood.has(key)) ? [convert(rest, pointer, depth + 1, context)] : [];
    if (combiner === 'allOf') return [...own, ...converted].reduce((left, right) => z.intersection(left, right));
    // oneOf is taken as anyOf: exclusivity between the contract's branches is not checked.
    const union = converted.length === 1 ? converted[0]! : z.union(converted as [z.ZodType, z.ZodType, ...z.ZodType[]]);
    return own.length === 0 ? union : z.intersection(own[0]!, union);
  }
  if (schema.const !== undefined) return literalSchema([schema.const], pointer);
  if (schema.enum !== undefined) {
    if (!Array.isArray(schema.enum)) throw new UnsupportedSchemaError(`${pointer}/enum`, 'must be a list');
    return literalSchema(schema.enum, pointer);
  }
  const types = typesOf(schema, pointer);
  if (types.length === 0) return z.unknown();
  const converted = types.map((type) => typed(schema, type, pointer, depth, context));
  return converted.length === 1 ? converted[0]! : z.union(converted as [z.ZodType, z.ZodType, ...z.ZodType[]]);
}

/**
 * Matches a document's `pattern` (`pointer` names it): the test, or an UnsupportedSchemaError
 * for a pattern it will not run.
 */
export type PatternMatcher = (source: string, pointer: string) => (text: string) => boolean;

interface Context {
  readonly pattern: PatternMatcher;
}

/** The zod schema accepting what `schema` accepts; throws UnsupportedSchemaError for what it cannot honour. */
export function zodFromJsonSchema(schema: JsonSchema | boolean, options: { pointer?: string; pattern: PatternMatcher }): z.ZodType {
  // Sizes first, without recursion: a 500,000-value enum or a 40,000-property object would be
  // slow to convert and build a validator whose first use exhausts the stack.
  const overBudget = schemaBudgetProblem(schema, options.pointer ?? '');
  if (overBudget) throw new UnsupportedSchemaError(overBudget.pointer, overBudget.problem);
  return convert(schema, options.pointer ?? '', 0, { pattern: options.pattern });
}
