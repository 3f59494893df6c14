/**
 * @module conformance/generators/largest-value
 * The largest valid value of a schema, and its costliest spelling in JSON within a byte limit
 * (issue 23). Largest: every optional property present, every array at its maxItems, every object
 * with additional properties at its maxProperties, every string without a pattern, format or enum
 * at its maxLength in 4-byte code points (lengths count code points: docs/assumptions.md A-1).
 * Strings a pattern, format or enum constrains keep a value that still matches, as long as the
 * format allows. Costliest: compact JSON with characters written as `\u` escapes (12 bytes for a
 * 4-byte code point) for as long as the body stays within the limit (A-13's body limits are set
 * above exactly this spelling). Everything is read from the schema; nothing restates a number.
 */
import type { JsonSchema } from '../../openapi/document.js';
import { fullValidValue } from './mutations.js';
import { withPrimaryType } from './schema-types.js';

/** A 4-byte code point in UTF-8: one character to a length bound, four bytes on the wire. */
export const fourByteCharacter = '\u{1F600}';

/** Where a `format: uri` string starts; the rest of its length is plain path characters (uri is ASCII, src/contract/uri.ts). */
const uriPrefix = 'https://evidence.example/';

const numberOf = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** The largest valid value of `schema` (see the module's header). */
export function largestValue(given: JsonSchema): unknown {
  if (Array.isArray(given.enum)) return longestMember(given.enum);
  if ('const' in given) return given.const;
  const schema = withPrimaryType(given);
  switch (schema.type) {
    case 'object':
      return largestObject(schema);
    case 'array': {
      const items = (schema.items as JsonSchema | undefined) ?? {};
      const count = numberOf(schema.maxItems) ?? Math.max(1, numberOf(schema.minItems) ?? 0);
      return Array.from({ length: count }, () => largestValue(items));
    }
    case 'string':
      return largestString(schema);
    case 'integer':
    case 'number':
      return numberOf(schema.maximum) ?? numberOf(schema.minimum) ?? 0;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return fullValidValue(schema);
  }
}

function largestObject(schema: JsonSchema): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const properties = (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
  for (const [name, property] of Object.entries(properties)) result[name] = largestValue(property);
  // More properties only where the schema allows them and bounds how many.
  const maxProperties = numberOf(schema.maxProperties);
  const extra = schema.additionalProperties;
  if (maxProperties !== undefined && extra !== false) {
    const extraSchema: JsonSchema = typeof extra === 'object' && extra !== null ? (extra as JsonSchema) : { type: 'string', maxLength: 1 };
    for (let index = 1; Object.keys(result).length < maxProperties; index += 1) {
      const name = `extra${index}`;
      if (!(name in result)) result[name] = largestValue(extraSchema);
    }
  }
  return result;
}

function largestString(schema: JsonSchema): string {
  const max = numberOf(schema.maxLength);
  if (schema.format === 'uri' && schema.pattern === undefined) {
    const length = max ?? uriPrefix.length;
    return uriPrefix.length >= length ? uriPrefix.slice(0, length) : uriPrefix + 'a'.repeat(length - uriPrefix.length);
  }
  // A pattern or another format: the one valid value the generators know (mutations.ts).
  if (schema.pattern !== undefined || schema.format !== undefined || max === undefined) return fullValidValue(schema) as string;
  return fourByteCharacter.repeat(max);
}

/** The enum member with the longest JSON spelling in bytes. */
function longestMember(members: readonly unknown[]): unknown {
  let longest = members[0];
  for (const member of members) if (utf8Length(JSON.stringify(member)) > utf8Length(JSON.stringify(longest))) longest = member;
  return longest;
}

/** UTF-8 bytes of a well-formed string (JSON text always is: JSON.stringify escapes lone surrogates). */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export interface CostliestJson {
  /** Compact JSON, as many characters `\u`-escaped as fit. */
  readonly text: string;
  /** Its length in UTF-8 bytes, at most the limit. */
  readonly bytes: number;
  /** Whether every character of every key and string is escaped (the limit allowed the whole costliest spelling). */
  readonly everyCharacterEscaped: boolean;
}

/**
 * `value` in compact JSON, with the characters of its keys and strings written as `\u` escapes
 * (6 bytes per UTF-16 unit) in document order for as long as the text stays within `maxBytes`:
 * the largest spelling of the value a body limit of `maxBytes` allows. Undefined when even
 * the plain compact spelling is over `maxBytes`.
 */
export function costliestJson(value: unknown, maxBytes: number): CostliestJson | undefined {
  const plainBytes = utf8Length(JSON.stringify(value));
  if (plainBytes > maxBytes) return undefined;
  const state = { budget: maxBytes - plainBytes, everyCharacterEscaped: true };
  const text = spell(value, state);
  return { text, bytes: utf8Length(text), everyCharacterEscaped: state.everyCharacterEscaped };
}

function spell(value: unknown, state: { budget: number; everyCharacterEscaped: boolean }): string {
  if (typeof value === 'string') return spellString(value, state);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => spell(item, state)).join(',')}]`;
  const members = Object.entries(value as Record<string, unknown>).map(([key, item]) => `${spellString(key, state)}:${spell(item, state)}`);
  return `{${members.join(',')}}`;
}

/** A string with its characters escaped while the budget lasts. */
function spellString(text: string, state: { budget: number; everyCharacterEscaped: boolean }): string {
  // The common case, the whole string escaped, in one pass over bytes: the artifact alone is a million characters.
  const extra = 6 * text.length - utf8Length(JSON.stringify(text).slice(1, -1));
  if (extra <= state.budget) {
    state.budget -= extra;
    return `"${everyUnitEscaped(text)}"`;
  }
  const parts: string[] = ['"'];
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    const next = index + 1 < text.length ? text.charCodeAt(index + 1) : 0;
    const pair = unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
    const plain = pair ? text.slice(index, index + 2) : plainSpelling(unit);
    const escaped = pair ? escapeOf(unit) + escapeOf(next) : escapeOf(unit);
    const extra = escaped.length - (pair ? 4 : utf8Length(plain));
    if (extra <= state.budget) {
      state.budget -= extra;
      parts.push(escaped);
    } else {
      state.everyCharacterEscaped = false;
      parts.push(plain);
    }
    if (pair) index += 1;
  }
  parts.push('"');
  return parts.join('');
}

/** One UTF-16 unit as JSON.stringify writes it inside a string (a lone surrogate and the C0 controls escaped). */
function plainSpelling(unit: number): string {
  const character = String.fromCharCode(unit);
  return unit < 0x20 || unit === 0x22 || unit === 0x5c || (unit >= 0xd800 && unit <= 0xdfff)
    ? JSON.stringify(character).slice(1, -1)
    : character;
}

const escapes = new Map<number, string>();

/** `\uXXXX` for one UTF-16 unit. */
function escapeOf(unit: number): string {
  let escaped = escapes.get(unit);
  if (escaped === undefined) {
    escaped = `\\u${unit.toString(16).padStart(4, '0')}`;
    escapes.set(unit, escaped);
  }
  return escaped;
}

const hexDigits = Buffer.from('0123456789abcdef');

/** Every UTF-16 unit of `text` as `\\uXXXX`. */
function everyUnitEscaped(text: string): string {
  const bytes = Buffer.allocUnsafe(6 * text.length);
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    const at = 6 * index;
    bytes[at] = 0x5c;
    bytes[at + 1] = 0x75;
    bytes[at + 2] = hexDigits[(unit >> 12) & 15]!;
    bytes[at + 3] = hexDigits[(unit >> 8) & 15]!;
    bytes[at + 4] = hexDigits[(unit >> 4) & 15]!;
    bytes[at + 5] = hexDigits[unit & 15]!;
  }
  return bytes.toString('latin1');
}
