/**
 * @module conformance/dredd/swagger2-view
 * A Swagger 2.0 view of the OpenAPI 3.1 document, generated for Dredd 14 only: Dredd reads
 * Swagger 2 well, OpenAPI 3.0 only experimentally, and OpenAPI 3.1 not at all. The view is
 * derived from the dereferenced spec each time (never hand-copied), keeps every constraint
 * Swagger 2's schema dialect can state, and turns 3.1-only forms into their 2.0 equivalents
 * (`examples: [..]` → `example`, media-type examples → `examples` / `x-example`). What it
 * cannot carry — `default` responses, which name no status Dredd could expect — is dropped
 * and listed in `dropped`.
 */
import type { ContractDocument, JsonSchema } from '../../openapi/document.js';

/** Keywords of Swagger 2's Schema Object (a JSON Schema draft-4 subset) that the view keeps. */
const swagger2SchemaKeywords = new Set([
  'type',
  'format',
  'title',
  'description',
  'enum',
  'required',
  'properties',
  'additionalProperties',
  'items',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minProperties',
  'maxProperties',
  'allOf',
  'default',
]);

/** A JSON Schema 2020-12 schema as a Swagger 2 Schema Object. */
export function toSwagger2Schema(schema: JsonSchema): JsonSchema {
  const result: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'properties') {
      result.properties = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([name, property]) => [name, toSwagger2Schema(property)]),
      );
    } else if (keyword === 'items' || keyword === 'additionalProperties') {
      result[keyword] = typeof value === 'object' && value !== null ? toSwagger2Schema(value as JsonSchema) : value;
    } else if (keyword === 'allOf') {
      result.allOf = (value as JsonSchema[]).map(toSwagger2Schema);
    } else if (keyword === 'type' && Array.isArray(value)) {
      // 3.1 nullability: type [T, 'null'] → T with x-nullable.
      const types = value.filter((type) => type !== 'null');
      result.type = types[0];
      if (types.length < value.length) result['x-nullable'] = true;
    } else if (keyword === 'const') {
      result.enum = [value];
    } else if (keyword === 'examples' && Array.isArray(value) && value.length > 0) {
      result.example = value[0];
    } else if (keyword === 'example' || swagger2SchemaKeywords.has(keyword) || keyword.startsWith('x-')) {
      result[keyword] = value;
    }
  }
  return result;
}

export interface Swagger2View {
  readonly document: Record<string, unknown>;
  /** What the view leaves out, as "METHOD /path: what". */
  readonly dropped: readonly string[];
}

export function swagger2View(
  contract: ContractDocument,
  options: { host: string; basePath?: string; scheme?: 'http' | 'https' },
): Swagger2View {
  const dropped: string[] = [];
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of contract.operations) {
    const raw = contract.document.paths[operation.path][operation.method] as Record<string, any>;
    const parameters: Record<string, unknown>[] = operation.parameters.map((parameter) => {
      const rawParameter = [...(raw.parameters ?? []), ...(contract.document.paths[operation.path].parameters ?? [])].find(
        (candidate: any) => candidate.name === parameter.name && candidate.in === parameter.in,
      );
      const schema = toSwagger2Schema(parameter.schema);
      const example = rawParameter?.example ?? schema.example;
      delete schema.example;
      return {
        name: parameter.name,
        in: parameter.in,
        required: parameter.required,
        ...schema,
        ...(example === undefined ? {} : { 'x-example': example }),
      };
    });
    const body = operation.requestBody?.content['application/json'];
    if (body) {
      const example = operation.requestBody?.examples['application/json']?.[0];
      const schema = toSwagger2Schema(body);
      parameters.push({
        name: 'body',
        in: 'body',
        required: operation.requestBody?.required ?? false,
        schema: example === undefined ? schema : { ...schema, example },
      });
    }
    const responses: Record<string, unknown> = {};
    for (const response of operation.responses) {
      if (response.status === 'default') {
        dropped.push(`${operation.method.toUpperCase()} ${operation.path}: the default response (no status for Dredd to expect)`);
        continue;
      }
      const schema = response.content['application/json'];
      const example = response.examples['application/json']?.[0];
      responses[response.status] = {
        description: response.description,
        ...(schema ? { schema: toSwagger2Schema(schema) } : {}),
        ...(example === undefined ? {} : { examples: { 'application/json': example } }),
      };
    }
    paths[operation.path] ??= {};
    paths[operation.path]![operation.method] = {
      operationId: operation.operationId,
      summary: raw.summary ?? operation.operationId,
      ...(raw.tags ? { tags: raw.tags } : {}),
      consumes: body ? ['application/json'] : [],
      produces: ['application/json'],
      parameters,
      responses,
    };
  }
  const info = contract.document.info ?? {};
  return {
    document: {
      swagger: '2.0',
      info: { title: info.title, version: info.version, description: `Generated from ${contract.source} for Dredd; do not edit.` },
      host: options.host,
      basePath: options.basePath ?? '/',
      schemes: [options.scheme ?? 'http'],
      paths,
    },
    dropped,
  };
}
