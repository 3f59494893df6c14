/**
 * @module conformance/generators/schema-arbitrary
 * fast-check arbitraries for values valid against a JSON Schema of the OpenAPI document. Only
 * the keywords read here shape the values, so an edit to the spec changes what is generated
 * with no code change. Unsupported keywords raise an UngenerableValueError (the run reports the
 * checks that needed the value as not judged) rather than producing values the schema might reject.
 */
import fc from 'fast-check';
import type { JsonSchema } from '../../openapi/document.js';
import { UngenerableValueError } from './pattern-values.js';
import { typesOf } from './schema-types.js';

const supportedKeywords = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'enum',
  'format',
  'description',
  'examples',
  'title',
  // An annotation: the server applies it when the property is absent, and any valid value may
  // still be sent, so it shapes nothing generated.
  'default',
  'const',
]);

export interface SchemaArbitraryOptions {
  /** Override per `format` (for example to generate only URIs your server can parse). */
  readonly formats?: Readonly<Record<string, fc.Arbitrary<string>>>;
}

/**
 * Absolute URIs under the reserved .example domain (RFC 2606), so a server that does fetch
 * evidence URIs reaches nothing (docs/assumptions.md A-14).
 */
const uriArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('https', 'http', 'ipfs'),
      fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/),
      // RFC 3986 path segments (unreserved, sub-delims, ':' '@', percent-encodings). Not
      // fc.webSegment(): building it costs about 160 MB of memory at start-up.
      fc.array(fc.stringMatching(/^([A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-F]{2}){0,12}$/), { maxLength: 3 }),
    )
    .map(([scheme, label, segments]) => `${scheme}://${label}.example/${segments.join('/')}`),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).map((name) => `urn:evidence:${name}`),
);

/** An arbitrary of values valid against `schema`. */
export function arbitraryFromSchema(schema: JsonSchema, options: SchemaArbitraryOptions = {}): fc.Arbitrary<unknown> {
  for (const keyword of Object.keys(schema)) {
    if (!supportedKeywords.has(keyword) && !keyword.startsWith('x-')) {
      throw new UngenerableValueError(`no value is generated for a schema with the keyword '${keyword}'`);
    }
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  // A type list: values of each member type, the other keywords applying to the member they fit.
  if (Array.isArray(schema.type)) {
    const members = typesOf(schema) ?? [];
    if (members.length === 0) throw new UngenerableValueError('no value is generated for an empty type list');
    return fc.oneof(...members.map((type) => arbitraryFromSchema({ ...schema, type }, options)));
  }
  switch (schema.type) {
    case 'object':
      return objectArbitrary(schema, options);
    case 'array':
      return fc.array(arbitraryFromSchema((schema.items as JsonSchema | undefined) ?? {}, options), {
        minLength: (schema.minItems as number | undefined) ?? 0,
        maxLength: (schema.maxItems as number | undefined) ?? 10,
      });
    case 'string':
      return stringArbitrary(schema, options);
    case 'null':
      return fc.constant(null);
    case undefined:
      return fc.jsonValue();
    default:
      throw new UngenerableValueError(`no value is generated for type '${String(schema.type)}'`);
  }
}

function objectArbitrary(schema: JsonSchema, options: SchemaArbitraryOptions): fc.Arbitrary<unknown> {
  const properties = (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
  const required = (schema.required as string[] | undefined) ?? [];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, propertySchema] of Object.entries(properties)) model[name] = arbitraryFromSchema(propertySchema, options);
  return fc.record(model, { requiredKeys: required });
}

function stringArbitrary(schema: JsonSchema, options: SchemaArbitraryOptions): fc.Arbitrary<string> {
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = schema.maxLength as number | undefined;
  if (typeof schema.format === 'string') {
    const format = options.formats?.[schema.format] ?? (schema.format === 'uri' ? uriArbitrary : undefined);
    if (!format) throw new UngenerableValueError(`no value is generated for format '${schema.format}'`);
    return format.filter((value) => withinLength(value, minLength, maxLength));
  }
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern, 'u')).filter((value) => withinLength(value, minLength, maxLength));
  }
  // Units are whole code points, astral ones included: lengths then mean what JSON Schema
  // means, and servers that count UTF-16 units are caught.
  return fc.array(codePoint, { minLength, ...(maxLength === undefined ? {} : { maxLength }) }).map((units) => units.join(''));
}

/**
 * Any Unicode scalar value (every code point but the surrogates), as fast-check's
 * `fc.string({ unit: 'binary' })` draws them. Not that unit itself: it builds a table of all
 * 1,112,064 code points, about 150 MB, the first time it is used.
 */
const codePoint: fc.Arbitrary<string> = fc
  .nat({ max: 0x10ffff - 0x800 })
  .map((index) => String.fromCodePoint(index < 0xd800 ? index : index + 0x800));

function withinLength(value: string, minLength: number, maxLength: number | undefined): boolean {
  const length = [...value].length;
  return length >= minLength && (maxLength === undefined || length <= maxLength);
}
