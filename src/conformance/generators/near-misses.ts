/**
 * @module conformance/generators/near-misses
 * Invalid values that sit right next to a valid one, because that is where real servers slip:
 * an enum compared without case or by prefix, a pattern without anchors or compared without
 * case, a `format` checked by a prefix, a JSON parser that forgives, a media type matched by
 * its start. Each near miss says what it is, so a failure names the slip. Everything here is
 * derived from the schema and a valid value; nothing is specific to one contract.
 */
import type { JsonSchema } from '../../openapi/document.js';

export interface NearMiss {
  /** The invalid value. */
  readonly value: string;
  /** What makes it a near miss, for reports: "another letter case". */
  readonly how: string;
}

/** Swaps the case of every cased letter: "svc.Draft" → "SVC.dRAFT". */
function swapCase(text: string): string {
  return [...text].map((character) => (character === character.toLowerCase() ? character.toUpperCase() : character.toLowerCase())).join('');
}

/** Keeps the near misses that differ from `valid` and from each other, in order. */
function distinct(valid: string, candidates: readonly NearMiss[], invalid: (value: string) => boolean): NearMiss[] {
  const seen = new Set([valid]);
  const kept: NearMiss[] = [];
  for (const candidate of candidates) {
    if (seen.has(candidate.value) || !invalid(candidate.value)) continue;
    seen.add(candidate.value);
    kept.push(candidate);
  }
  return kept;
}

/**
 * The neighbours of an enum member that are not members: another letter case, one character
 * short, one character long, and the member with a trailing space (servers that trim).
 */
export function enumNeighbours(member: string, members: readonly unknown[]): NearMiss[] {
  const listed = new Set(members.filter((candidate): candidate is string => typeof candidate === 'string'));
  const characters = [...member];
  const last = characters.at(-1) ?? 'x';
  return distinct(
    member,
    [
      { value: swapCase(member), how: 'another letter case' },
      { value: member.toUpperCase(), how: 'another letter case' },
      { value: characters.slice(0, -1).join(''), how: 'one character short' },
      { value: `${member}${last === 'x' ? 'y' : 'x'}`, how: 'one character long' },
      { value: `${member} `, how: 'a trailing space' },
    ],
    (value) => !listed.has(value),
  );
}

/** Characters tried, in order, as the one foreign character of a pattern near miss. */
const foreignCandidates = ['g', 'G', 'z', '!', '-', '_', ' ', 'é', '0', 'a'];

/**
 * Near misses of a string `pattern` around a valid value: the valid value in another letter
 * case, one character short, one character long, and one character swapped for a foreign one.
 * Letter case needs a cased letter: when `valid` has none, one allowed letter is put in first
 * (so "000…" becomes "a00…", whose "A00…" is the near miss).
 */
export function patternNearMisses(valid: string, pattern: string): NearMiss[] {
  const regex = new RegExp(pattern, 'u');
  const matches = (value: string) => regex.test(value);
  const characters = [...valid];
  const withCasedLetter = (() => {
    if (/\p{L}/u.test(valid) && swapCase(valid) !== valid) return valid;
    for (const letter of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ') {
      const candidate = letter + characters.slice(1).join('');
      if (matches(candidate)) return candidate;
    }
    return undefined;
  })();
  const last = characters.at(-1) ?? 'a';
  const foreign = foreignCandidates
    .map((character) => [...characters.slice(0, -1), character].join(''))
    .find((candidate) => candidate !== valid && !matches(candidate));
  return distinct(
    valid,
    [
      ...(withCasedLetter ? [{ value: swapCase(withCasedLetter), how: 'another letter case' }] : []),
      { value: characters.slice(0, -1).join(''), how: 'one character short' },
      { value: valid + last, how: 'one character long' },
      ...(foreign ? [{ value: foreign, how: 'one foreign character' }] : []),
    ],
    (value) => !matches(value),
  );
}

/**
 * Values that break a `format` while looking like it. Only formats whose meaning the project
 * fixes are known (src/contract/uri.ts for `uri`); an unknown format gets none, and the
 * coverage report says so.
 */
export function formatNearMisses(format: string, isValid: (value: string) => boolean = () => false): NearMiss[] {
  const candidates: Record<string, readonly NearMiss[]> = {
    uri: [
      { value: 'not a uri', how: 'plain words' },
      { value: 'evidence.example/item', how: 'no scheme (a relative reference)' },
      { value: 'https://evidence.example/an item', how: 'a space inside' },
    ],
  };
  return (candidates[format] ?? []).filter((candidate) => !isValid(candidate.value));
}

/** One way to make a JSON document not JSON, and the parser slip it catches. */
export interface MalformedJson {
  readonly raw: string;
  /** For reports: "trailing data after the document". */
  readonly description: string;
}

/**
 * Malformed variants of a valid JSON object, each of which a forgiving parser (JSON5, a
 * streaming decoder that stops after the first value, a repairing parser) would turn into the
 * valid object again, so a server that accepts them answers as if the input were valid.
 */
export function malformedJsonVariants(value: Record<string, unknown>): MalformedJson[] {
  const whole = JSON.stringify(value);
  const inner = whole.slice(1, -1);
  const entries = Object.entries(value);
  const [firstKey] = entries[0] ?? ['x'];
  const singleQuoted = `{${entries.map(([key, item]) => `'${key}':${toSingleQuoted(item)}`).join(',')}}`;
  return [
    { raw: whole.slice(0, Math.max(2, Math.floor(whole.length / 2))), description: 'a JSON body truncated in the middle' },
    { raw: whole.slice(0, -1), description: 'a JSON body missing its last character (truncated)' },
    { raw: `${whole} {}`, description: 'trailing data after the JSON document' },
    { raw: `{/* a comment */${inner}}`, description: 'a comment inside the JSON document' },
    { raw: singleQuoted, description: 'single-quoted strings instead of JSON strings' },
    // NaN first and the valid value after it: a parser that accepts NaN keeps the last duplicate.
    { raw: `{${JSON.stringify(firstKey)}:NaN,${inner}}`, description: 'NaN as a value (not JSON)' },
    { raw: `{${inner},}`, description: 'a trailing comma in the JSON document' },
  ];
}

function toSingleQuoted(value: unknown): string {
  if (typeof value === 'string') return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map(toSingleQuoted).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, item]) => `'${key}':${toSingleQuoted(item)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** A Content-Type sent with a valid JSON body, and whether the contract's media type accepts it. */
export interface MediaTypeCase {
  /** The Content-Type header, or undefined for none. */
  readonly contentType: string | undefined;
  readonly description: string;
}

/**
 * Media types a server must refuse for a body documented as `documented` (A-21): none at all,
 * text/plain (what a bare fetch or curl -d sends), form encoding, and a longer type that starts
 * with the documented one (a server matching by prefix accepts it).
 */
export function unsupportedMediaTypes(documented: string): MediaTypeCase[] {
  return [
    { contentType: undefined, description: 'no Content-Type' },
    { contentType: 'text/plain', description: 'Content-Type text/plain' },
    { contentType: 'application/x-www-form-urlencoded', description: 'Content-Type application/x-www-form-urlencoded' },
    { contentType: `${documented}-patch+json`, description: `Content-Type ${documented}-patch+json (starts with ${documented})` },
  ];
}

/** Spellings of the documented media type that mean the same and must be accepted (RFC 9110 §8.3.1). */
export function equivalentMediaTypes(documented: string): MediaTypeCase[] {
  return [
    { contentType: `${documented}; charset=utf-8`, description: `Content-Type ${documented}; charset=utf-8` },
    { contentType: documented.toUpperCase(), description: `Content-Type ${documented.toUpperCase()} (media types ignore case)` },
  ];
}

/** A property name in another letter case, when it is not itself a property (a case-insensitive binder accepts it). */
export function propertyCaseNearMiss(name: string, schema: JsonSchema): string | undefined {
  const properties = Object.keys((schema.properties as Record<string, unknown>) ?? {});
  const swapped = name.charAt(0) === name.charAt(0).toUpperCase() ? swapCase(name) : name.charAt(0).toUpperCase() + name.slice(1);
  return swapped !== name && !properties.includes(swapped) ? swapped : undefined;
}
