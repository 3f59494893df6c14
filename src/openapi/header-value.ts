/**
 * @module openapi/header-value
 * A header's text as the value its schema describes, under OpenAPI's `simple` style (the only
 * style a header has): `5` is the integer 5 for an integer schema, `a,b` the array [a, b]. Text
 * that is no such value stays text, so the schema's `type` reports it.
 */
import type { JsonSchema } from './document.js';

const numberText = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export function headerValueForSchema(text: string, schema: JsonSchema): unknown {
  const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
  if (types.includes('array')) {
    const items = schema.items !== null && typeof schema.items === 'object' ? (schema.items as JsonSchema) : {};
    return text.split(',').map((item) => headerValueForSchema(item.trim(), items));
  }
  if ((types.includes('integer') || types.includes('number')) && numberText.test(text)) return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}
