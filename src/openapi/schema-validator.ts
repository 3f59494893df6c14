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
