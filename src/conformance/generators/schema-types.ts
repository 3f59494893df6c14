/**
 * @module conformance/generators/schema-types
 * A schema's `type` as a list (OpenAPI 3.1 allows `type: [string, "null"]`). The generators
 * build one value per schema, so a type list is read as its member types: the valid value
 * takes the first member that is not null (its constraints are the ones worth exercising),
 * the arbitrary draws from every member, and a type mutation is only made with a value of a
 * type the list does not allow (null is no mutation where null is listed).
 */
import type { JsonSchema } from '../../openapi/document.js';

/** The member types of `schema.type`, or undefined when it names none. */
export function typesOf(schema: JsonSchema): readonly string[] | undefined {
  if (Array.isArray(schema.type)) return schema.type.filter((member): member is string => typeof member === 'string');
  return typeof schema.type === 'string' ? [schema.type] : undefined;
}

/** `schema` with a single type: a type list's first member that is not null. */
export function withPrimaryType(schema: JsonSchema): JsonSchema {
  if (!Array.isArray(schema.type)) return schema;
  const members = typesOf(schema) ?? [];
  const primary = members.find((member) => member !== 'null') ?? members[0];
  return primary === undefined ? { ...schema, type: undefined } : { ...schema, type: primary };
}

/** The JSON Schema type of a JSON value ("integer" for a whole number). */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Whether `value`'s type is one `schema.type` allows (any, when it names none). */
export function typeAllows(schema: JsonSchema, value: unknown): boolean {
  const members = typesOf(schema);
  if (members === undefined) return true;
  const type = jsonTypeOf(value);
  return members.includes(type) || (type === 'integer' && members.includes('number'));
}
