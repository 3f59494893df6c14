/**
 * @module engine/pact/matching-rules
 * V4 matching rules for a body, read from the contract's schema beside the example the mock
 * recorded: strings by type, or by the schema's pattern; enums as a regex alternation; numbers
 * as integer or number; arrays by type with their minimum, their items under `[*]`. So a pact
 * never pins a job id, a digest or a status the contract leaves open to the one value seen.
 * A rule is only written where the example satisfies it: a pact whose own example breaks its
 * rules is refused by Pact's tools.
 */
import * as z from 'zod';
import type { PactMatcher, PactMatcherList } from './pact-v4.js';

type JsonSchema = { readonly [key: string]: unknown };

const jsonSchemas = new WeakMap<z.ZodType, JsonSchema>();

/** The schema as JSON Schema, converted once per schema (checks JSON Schema cannot say are left out). */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  let converted = jsonSchemas.get(schema);
  if (converted === undefined) {
    try {
      converted = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as JsonSchema;
    } catch {
      // A schema zod cannot render (a document's own construct): rules by type alone.
      converted = {};
    }
    jsonSchemas.set(schema, converted);
  }
  return converted;
}

/** Escapes what is special to both JavaScript's and Rust's regex syntax (Pact's verifier is Rust); `/` is not. */
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function rule(...matchers: PactMatcher[]): PactMatcherList {
  return { combine: 'AND', matchers };
}

export const typeRule = rule({ match: 'type' });

/** `$.name`, or `$['odd name']` for a name a dotted path cannot carry. */
function childPath(path: string, name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `${path}.${name}` : `${path}['${name.replaceAll("'", "\\'")}']`;
}

/** The branch of an anyOf/oneOf that fits `value`'s JSON type, or the schema itself. */
function branchFor(schema: JsonSchema, value: unknown): JsonSchema {
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (!Array.isArray(branches)) return schema;
  const kind = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  return (
    branches.find((branch) => {
      const type = branch?.type;
      return type === kind || (kind === 'number' && type === 'integer') || (Array.isArray(type) && type.includes(kind));
    }) ?? {}
  );
}

function leafRule(schema: JsonSchema, value: unknown): PactMatcherList | undefined {
  if (typeof value === 'string') {
    const choices = schema.enum;
    if (Array.isArray(choices) && choices.length > 0 && choices.every((choice) => typeof choice === 'string') && choices.includes(value)) {
      return rule({ match: 'regex', regex: `^(${(choices as string[]).map(escapeRegExp).join('|')})$` });
    }
    if (typeof schema.pattern === 'string') {
      try {
        if (new RegExp(schema.pattern, 'u').test(value)) return rule({ match: 'regex', regex: schema.pattern });
      } catch {
        // A pattern JavaScript cannot compile: by type.
      }
    }
    return typeRule;
  }
  if (typeof value === 'number') return rule({ match: Number.isInteger(value) && schema.type === 'integer' ? 'integer' : 'number' });
  if (typeof value === 'boolean') return rule({ match: 'boolean' });
  return undefined;
}

/**
 * Adds to `rules` the rules for `value` at `path` (`$` for a whole body), as `schema` allows it.
 * Paths in `fixed` get no rule: their values are what a provider state promised, compared as they are.
 */
export function addBodyRules(options: {
  readonly schema: JsonSchema | undefined;
  readonly value: unknown;
  readonly path: string;
  readonly rules: Record<string, PactMatcherList>;
  readonly fixed?: ReadonlySet<string>;
}): void {
  const { value, path, rules, fixed } = options;
  if (fixed?.has(path)) return;
  const schema = branchFor(options.schema ?? {}, value);
  if (Array.isArray(value)) {
    const least =
      typeof schema.minItems === 'number' && value.length >= schema.minItems && schema.minItems > 0 ? schema.minItems : undefined;
    rules[path] = least === undefined ? typeRule : rule({ match: 'type', min: least });
    const items = schema.items as JsonSchema | undefined;
    if (value.length > 0) addBodyRules({ schema: items, value: value[0], path: `${path}[*]`, rules, ...(fixed ? { fixed } : {}) });
    return;
  }
  if (value !== null && typeof value === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const [name, inner] of Object.entries(value)) {
      addBodyRules({
        schema: Object.hasOwn(properties, name) ? properties[name] : undefined,
        value: inner,
        path: childPath(path, name),
        rules,
        ...(fixed ? { fixed } : {}),
      });
    }
    return;
  }
  const leaf = leafRule(schema, value);
  if (leaf) rules[path] = leaf;
}

/** A regex rule for a path that is `prefix` and one segment: a job id the contract leaves open. */
export function pathSegmentRule(prefix: string): PactMatcherList {
  return rule({ match: 'regex', regex: `^${escapeRegExp(prefix)}[^/]+$` });
}

/** The rule for a JSON answer's Content-Type, whatever parameters it carries. */
export const jsonContentTypeRule = rule({ match: 'regex', regex: '^application/json(;.*)?$' });
