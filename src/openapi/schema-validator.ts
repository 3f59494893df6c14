/**
 * @module openapi/schema-validator
 * The project's one JSON Schema 2020-12 validator factory. Every validation against the
 * OpenAPI document (tests, conformance runner) goes through it, so `format: uri` means the
 * same here as in the engine's zod schemas (src/contract/uri.ts).
 */
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { isUri } from '../contract/uri.js';

/** OpenAPI 3.1 keywords that are annotations to a JSON Schema validator. */
const openApiAnnotations = ['discriminator', 'xml', 'externalDocs', 'example'];

/**
 * The formats of JSON Schema 2020-12 and of the OpenAPI Format Registry, other than `uri`: read as
 * annotations, as both specifications allow ("MAY default back to the type alone"). The contract
 * uses only `uri`, which is validated; a successor or a user's document using `email` or `int64`
 * is still read (strict mode would refuse it, and the runner would not start).
 */
const annotationFormats = [
  'date-time',
  'date',
  'time',
  'duration',
  'email',
  'idn-email',
  'hostname',
  'idn-hostname',
  'ipv4',
  'ipv6',
  'uri-reference',
  'iri',
  'iri-reference',
  'uuid',
  'uri-template',
  'json-pointer',
  'relative-json-pointer',
  'regex',
  'int32',
  'int64',
  'float',
  'double',
  'byte',
  'binary',
  'password',
  'char',
  'decimal',
  'decimal128',
  'int8',
  'int16',
  'uint8',
  'sf-binary',
  'sf-boolean',
  'sf-decimal',
  'sf-integer',
  'sf-string',
  'sf-token',
  'media-range',
  'commonmark',
  'html',
  'http-date',
  'duration',
];

export type SchemaValidator = Ajv2020;

/**
 * `allErrors: false` stops at a value's first problem: the conformance runner validates what
 * any server sends, and listing every problem of a hostile array of a million items would
 * build a million error objects.
 */
export function createSchemaValidator(options: { allErrors?: boolean } = {}): SchemaValidator {
  const ajv = new Ajv2020({ allErrors: options.allErrors ?? true, strict: true, strictRequired: false, validateFormats: true });
  for (const keyword of openApiAnnotations) ajv.addKeyword({ keyword });
  ajv.addFormat('uri', { type: 'string', validate: isUri });
  for (const format of new Set(annotationFormats)) ajv.addFormat(format, true);
  return ajv;
}

/** One problem found in a value: where (a JSON Pointer), what rule, and a readable message. */
export interface SchemaProblem {
  readonly pointer: string;
  readonly keyword: string;
  readonly message: string;
}

export function toSchemaProblems(errors: readonly ErrorObject[] | null | undefined): SchemaProblem[] {
  return (errors ?? []).map((error) => ({
    pointer: error.instancePath || '/',
    keyword: error.keyword,
    message: `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}${
      error.keyword === 'additionalProperties' ? `: '${String(error.params.additionalProperty)}'` : ''
    }`,
  }));
}
