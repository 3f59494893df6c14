/**
 * @module conformance/workflows/workflow-inputs
 * A workflow's inputs: its `inputs` JSON Schema (local `$ref`s into the document resolved), the
 * values given on the command line (`--input name=value`, read as the property's type says),
 * and the schema's defaults for the rest, as Redocly's respect fills them.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ArazzoDocument } from './arazzo-document.js';
import { followPointer, setOwn } from './runtime-expressions.js';

type Schema = Record<string, unknown>;

/** Replaces each local `$ref` ('#/components/inputs/x') by what it points at, to a bounded depth. */
export function resolveLocalRefs(schema: unknown, document: ArazzoDocument, depth = 0): unknown {
  if (depth > 16) throw new Error('the inputs schema nests $ref more than 16 levels deep (a $ref cycle?)');
  if (Array.isArray(schema)) return schema.map((item) => resolveLocalRefs(item, document, depth + 1));
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as Schema).$ref;
  if (typeof ref === 'string') {
    if (!ref.startsWith('#'))
      throw new Error(`$ref '${ref}' points outside the document; only local references (#/components/inputs/…) are read`);
    const target = followPointer(document, decodeURIComponent(ref.slice(1)));
    if (!target.found) throw new Error(`$ref '${ref}' points at nothing in the document`);
    return resolveLocalRefs(target.value, document, depth + 1);
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, resolveLocalRefs(value, document, depth + 1)]));
}

function typesOf(schema: unknown): string[] {
  const type = (schema as Schema | undefined)?.type;
  return Array.isArray(type) ? type.map(String) : typeof type === 'string' ? [type] : [];
}

/** A command-line value read as the input's schema types it: a number, a boolean, JSON, or text. */
export function coerceInput(text: string, schema: unknown): unknown {
  const types = typesOf(schema);
  if ((types.includes('integer') || types.includes('number')) && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  if ((types.includes('object') || types.includes('array')) && /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** The names of the inputs whose values are secrets (format: password, or writeOnly), to scrub. */
export function secretInputNames(schema: unknown): string[] {
  const properties = ((schema as Schema | undefined)?.properties ?? {}) as Record<string, Schema>;
  return Object.entries(properties)
    .filter(([, property]) => property?.format === 'password' || property?.writeOnly === true)
    .map(([name]) => name);
}

/** The workflow's inputs: the given values (coerced by the schema) over the schema's defaults. */
export function workflowInputs(schema: unknown, given: Readonly<Record<string, string | unknown>>): Record<string, unknown> {
  const properties = ((schema as Schema | undefined)?.properties ?? {}) as Record<string, Schema>;
  const inputs: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (Object.hasOwn(given, name)) {
      const value = given[name];
      setOwn(inputs, name, typeof value === 'string' ? coerceInput(value, property) : value);
    } else if (property && Object.hasOwn(property, 'default')) setOwn(inputs, name, structuredClone(property.default));
  }
  return inputs;
}

let inputValidator: Ajv2020 | undefined;

/**
 * What is wrong with a workflow's inputs against its inputs schema, or undefined. Formats are
 * annotations here (format: password marks a secret, it constrains nothing), and a keyword this
 * validator does not know is ignored rather than refused: the schema is the workflow author's.
 */
export function inputProblems(schema: unknown, inputs: Readonly<Record<string, unknown>>): string | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  inputValidator ??= new Ajv2020({ strict: false, validateFormats: false, allErrors: false, logger: false });
  try {
    const validate = inputValidator.compile(schema);
    if (validate(inputs)) return undefined;
    return (validate.errors ?? []).map((error) => `${error.instancePath || '(inputs)'} ${error.message ?? 'is invalid'}`).join('; ');
  } catch (error) {
    return `the inputs schema cannot be compiled: ${(error as Error).message}`;
  }
}
