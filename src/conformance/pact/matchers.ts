/**
 * @module conformance/pact/matchers
 * One matcher against one value: what Pact's V4 matchers accept (type, regex, equality, include,
 * integer, decimal, number, boolean, null, date/time/timestamp, min/max, notEmpty, semver,
 * contentType, statusCode, and the container checks of values, eachKey, eachValue and
 * arrayContains, whose descent body-matching.ts does). A value from a header or a status is
 * text, so `integer` there reads digits; a body value must have the JSON type itself.
 */
import { quoted } from '../exchange.js';
import type { Matcher, StatusClass } from './rules.js';

/** Where a value came from: a JSON body, or text (a header, a query value, a text body). */
export type ValueSource = 'json' | 'text';

/** SemVer 2.0.0's own grammar (semver.org), without its optional leading 'v'. */
const semverPattern =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** The most characters of a value a message shows. */
const shownLength = 120;

/**
 * A value as a message shows it: JSON, cut to a readable length. Written only as far as shown,
 * since the value may be an answer's whole body of megabytes.
 */
export function shown(value: unknown): string {
  if (value === undefined) return '(absent)';
  if (typeof value === 'string')
    return quoted(JSON.stringify(value.length > shownLength * 2 ? value.slice(0, shownLength * 2) : value), shownLength);
  const parts: string[] = [];
  let length = 0;
  const write = (text: string) => {
    parts.push(text);
    length += text.length;
  };
  const walk = (node: unknown): void => {
    if (length > shownLength) return;
    if (node === null || typeof node !== 'object') {
      write(typeof node === 'string' ? JSON.stringify(node.slice(0, shownLength)) : String(JSON.stringify(node) ?? node));
      return;
    }
    const array = Array.isArray(node);
    write(array ? '[' : '{');
    let first = true;
    for (const [key, item] of Object.entries(node)) {
      if (length > shownLength) break;
      if (!first) write(',');
      first = false;
      if (!array) write(`${JSON.stringify(key.slice(0, shownLength))}:`);
      walk(item);
    }
    write(array ? ']' : '}');
  };
  walk(value);
  const text = parts.join('');
  return text.length > shownLength ? `${text.slice(0, shownLength)}…` : text;
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return false;
}

function inClass(status: number, statusClass: StatusClass): boolean {
  switch (statusClass) {
    case 'info':
      return status >= 100 && status < 200;
    case 'success':
      return status >= 200 && status < 300;
    case 'redirect':
      return status >= 300 && status < 400;
    case 'clientError':
      return status >= 400 && status < 500;
    case 'serverError':
      return status >= 500 && status < 600;
    case 'nonError':
      return status < 400;
    case 'error':
      return status >= 400;
  }
}

/** The media type's essence (type/subtype, lower case), without parameters. */
export function essenceOf(contentType: string | null | undefined): string | undefined {
  const essence = contentType?.split(';')[0]?.trim().toLowerCase();
  return essence ? essence : undefined;
}

/** What one matcher wants, in words, for "expected". */
export function describeMatcher(matcher: Matcher, expected: unknown): string {
  switch (matcher.kind) {
    case 'equality':
      return `equal to ${shown(expected)}`;
    case 'regex':
      return `matching the regex ${quoted(matcher.source, 120)}`;
    case 'type': {
      const bounds = [matcher.min === undefined ? '' : `at least ${matcher.min}`, matcher.max === undefined ? '' : `at most ${matcher.max}`]
        .filter(Boolean)
        .join(' and ');
      return `a value of type ${jsonType(expected)}${bounds ? ` with ${bounds} items` : ''}`;
    }
    case 'include':
      return `text including ${shown(matcher.value)}`;
    case 'integer':
    case 'decimal':
    case 'number':
    case 'boolean':
      return `a${matcher.kind === 'integer' ? 'n' : ''} ${matcher.kind}`;
    case 'null':
      return 'null';
    case 'notEmpty':
      return `a non-empty ${jsonType(expected)}`;
    case 'semver':
      return 'a semantic version (semver.org)';
    case 'values':
      return 'an object (its keys not compared)';
    case 'date':
    case 'time':
    case 'timestamp':
      return `a ${matcher.kind} in the format ${matcher.format.pattern}`;
    case 'contentType':
      return `content of type ${matcher.value}`;
    case 'arrayContains':
      return `an array holding an item for each of ${matcher.variants.length} variant(s)`;
    case 'eachKey':
      return 'an object whose every key matches its rules';
    case 'eachValue':
      return 'a collection whose every value matches its rules';
    case 'statusCode':
      return typeof matcher.statuses === 'string'
        ? `a status of the class ${matcher.statuses}`
        : `one of the statuses ${matcher.statuses.join(', ')}`;
  }
}

function numeric(text: string, kind: 'integer' | 'decimal' | 'number'): boolean {
  if (kind === 'integer') return /^-?\d{1,300}$/.test(text);
  if (kind === 'decimal') return /^-?\d{1,300}\.\d{1,300}$/.test(text);
  return /^-?\d{1,300}(\.\d{1,300})?([eE][+-]?\d{1,4})?$/.test(text);
}

/**
 * Whether `actual` satisfies the matcher at its own node (a container's items are the
 * descent's business). `contentType` is the answer's, for the contentType matcher.
 */
export function satisfies(options: {
  matcher: Matcher;
  expected: unknown;
  actual: unknown;
  source: ValueSource;
  contentType?: string | null;
}): boolean {
  const { matcher, expected, actual, source } = options;
  const text = typeof actual === 'string' ? actual : typeof actual === 'number' || typeof actual === 'boolean' ? String(actual) : undefined;
  switch (matcher.kind) {
    case 'equality':
      return deepEqual(expected, actual);
    case 'regex':
      return text !== undefined && matcher.pattern.test(text);
    case 'type': {
      if (jsonType(actual) !== jsonType(expected) && !(source === 'text' && typeof actual === 'string')) return false;
      if (!Array.isArray(actual)) return true;
      return (matcher.min === undefined || actual.length >= matcher.min) && (matcher.max === undefined || actual.length <= matcher.max);
    }
    case 'include':
      return text?.includes(matcher.value) === true;
    case 'integer':
      return source === 'text' ? typeof actual === 'string' && numeric(actual, 'integer') : Number.isInteger(actual);
    case 'decimal':
    case 'number':
      // JSON.parse reads 1.0 as 1: a decimal body value cannot be told from an integer here.
      return source === 'text'
        ? typeof actual === 'string' && numeric(actual, matcher.kind)
        : typeof actual === 'number' && Number.isFinite(actual);
    case 'boolean':
      return typeof actual === 'boolean' || (source === 'text' && (actual === 'true' || actual === 'false'));
    case 'null':
      return actual === null;
    case 'notEmpty':
      return !isEmpty(actual) && (jsonType(actual) === jsonType(expected) || expected === undefined);
    case 'semver':
      return typeof actual === 'string' && actual.length <= 256 && semverPattern.test(actual);
    case 'date':
    case 'time':
    case 'timestamp':
      return typeof actual === 'string' && matcher.format.test(actual);
    case 'contentType':
      return essenceOf(options.contentType) === essenceOf(matcher.value);
    case 'values':
    case 'eachKey':
      return actual !== null && typeof actual === 'object' && !Array.isArray(actual);
    case 'eachValue':
      return actual !== null && typeof actual === 'object';
    case 'arrayContains':
      return Array.isArray(actual);
    case 'statusCode': {
      const status = typeof actual === 'number' ? actual : Number(actual);
      return typeof matcher.statuses === 'string' ? inClass(status, matcher.statuses) : matcher.statuses.includes(status);
    }
  }
}

/** Structural equality of two JSON values (no cycles: both come from JSON.parse). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => deepEqual(item, other[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && deepEqual(left[key], right[key]));
}
