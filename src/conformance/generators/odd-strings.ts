/**
 * @module conformance/generators/odd-strings
 * Odd but valid strings (issue 23): text a JSON Schema string without a pattern accepts, but
 * that breaks servers all the same — lone surrogates (escaped in the JSON text), NUL and other
 * control characters, combining marks, right-to-left marks and overrides, invisible characters,
 * and the longest code points (4 bytes in UTF-8). `withOddStrings` puts one class into every
 * string of a value that can hold it within its limits; a string a pattern, format or enum
 * constrains gets only a value that still matches (for `format: uri`, the class
 * percent-encoded in the URI's path), else keeps its valid value.
 */
import type { JsonSchema } from '../../openapi/document.js';
import { withPrimaryType } from './schema-types.js';

export interface OddStrings {
  /** Kebab-case, for request purposes and reports. */
  readonly name: string;
  /** What the strings hold, for a report's "input". */
  readonly description: string;
  readonly text: string;
}

/** One request per class and operation: each class goes into every string field at once. */
export const oddStringClasses: readonly OddStrings[] = [
  {
    name: 'lone-surrogates',
    description: 'lone surrogates, written as escapes in the JSON text (\\ud800, \\udfff, a low one before a high one)',
    text: '\ud800a\udfff\udc00\ud800',
  },
  {
    name: 'control-characters',
    description: 'NUL and other control characters (\\u0000, \\u0001, \\u001f, \\b, \\f, \\n, \\r, \\t escaped; DEL and NEL as they are)',
    text: '\u0000\u0001\u001f\b\f\n\r\t\u007f\u0085',
  },
  {
    name: 'combining-marks',
    description: 'combining marks: one with no base character, then three stacked on one letter (e, U+0301, U+0308, U+0323)',
    text: '\u0301e\u0301\u0308\u0323',
  },
  {
    name: 'bidi-marks',
    description: 'right-to-left marks: RLM, a right-to-left override (U+202E) with its pop, and Hebrew in a right-to-left isolate',
    text: '\u200f\u202eabc\u202c\u2067\u05e9\u05dc\u05d5\u05dd\u2069',
  },
  {
    name: 'longest-code-points',
    description: '4-byte UTF-8 code points: U+10FFFF (the last), U+1F600, U+E0001 (a tag), U+F0000 (private use)',
    text: '\u{10FFFF}\u{1F600}\u{E0001}\u{F0000}',
  },
  {
    name: 'invisible-characters',
    description: 'invisible characters: a zero-width space, a byte order mark, the line and paragraph separators, U+FFFE and U+FFFF',
    text: '\u200b\ufeff\u2028\u2029\ufffe\uffff',
  },
];

/** `text` fitted to a string schema's length bounds in code points: cut at the maximum, padded with 'v' to the minimum. */
export function fitToCodePoints(text: string, schema: JsonSchema): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  // Array.from splits by code points and keeps a lone surrogate as one, as JSON Schema counts.
  const points = Array.from(text);
  const cut = points.length > max ? points.slice(0, max) : points;
  return cut.join('') + 'v'.repeat(Math.max(0, min - cut.length));
}

/** Every code point of `text` as percent-encoded UTF-8 (a lone surrogate as its 3-byte form, as WTF-8 writes it). */
export function percentEncodedUtf8(text: string): string {
  let result = '';
  for (const character of text) {
    const code = character.codePointAt(0)!;
    const bytes =
      code < 0x80
        ? [code]
        : code < 0x800
          ? [0xc0 | (code >> 6), 0x80 | (code & 0x3f)]
          : code < 0x10000
            ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
            : [0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
    result += bytes.map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return result;
}

/** An absolute URI whose path is `text` percent-encoded, cut to the schema's maxLength at a whole escape. */
function uriHolding(text: string, schema: JsonSchema): string {
  const prefix = 'https://evidence.example/';
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  let path = '';
  for (const character of text) {
    const encoded = percentEncodedUtf8(character);
    if (prefix.length + path.length + encoded.length > max) break;
    path += encoded;
  }
  return prefix + path;
}

export interface OddValue {
  readonly value: unknown;
  /** JSON Pointers of the strings that hold the odd text (or, for a URI, its percent-encoding). */
  readonly pointers: readonly string[];
}

/**
 * A copy of `base` (valid against `schema`) with every string holding `text`, fitted to its
 * lengths, where `accepts(stringSchema, candidate)` says the string's own schema takes it; a
 * `format: uri` string holds it percent-encoded instead; any other string keeps its value.
 */
export function withOddStrings(options: {
  readonly schema: JsonSchema;
  readonly base: unknown;
  readonly text: string;
  readonly accepts: (schema: JsonSchema, value: string) => boolean;
}): OddValue {
  const pointers: string[] = [];
  const visit = (given: JsonSchema, value: unknown, pointer: string): unknown => {
    const schema = withPrimaryType(given);
    if (typeof value === 'string' && schema.type === 'string') {
      const candidates = [
        ...(schema.enum === undefined && schema.format === undefined ? [fitToCodePoints(options.text, schema)] : []),
        ...(schema.format === 'uri' ? [uriHolding(options.text, schema)] : []),
      ];
      const taken = candidates.find((candidate) => candidate !== value && options.accepts(schema, candidate));
      if (taken === undefined) return value;
      pointers.push(pointer);
      return taken;
    }
    if (Array.isArray(value)) {
      const items = (schema.items as JsonSchema | undefined) ?? {};
      return value.map((item, index) => visit(items, item, `${pointer}/${index}`));
    }
    if (value !== null && typeof value === 'object') {
      const properties = (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([name, item]) => [
          name,
          properties[name] ? visit(properties[name], item, `${pointer}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`) : item,
        ]),
      );
    }
    return value;
  };
  return { value: visit(options.schema, options.base, ''), pointers };
}
