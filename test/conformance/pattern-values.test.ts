import { expect, it } from 'vitest';
import { boundariesOf, fullValidValue, mutationsOf } from '../../src/conformance/generators/mutations.js';
import { patternValue, UngenerableValueError } from '../../src/conformance/generators/pattern-values.js';

it.each([
  ['^[0-9a-fA-F]{64}$', {}, '0'.repeat(64)],
  ['^sha256:[0-9a-f]{64}$', {}, `sha256:${'0'.repeat(64)}`],
  ['^(a|b)[0-9]{2,4}$', {}, 'a00'],
  ['^(?:low|high)(-[a-z]{2})?$', { minLength: 6 }, 'low-aa'],
  ['^[a-z]+-[0-9]*$', { minLength: 5, maxLength: 5 }, 'aaaa-'],
  ['^[^/]+$', {}, 'a'],
  ['^\\d{3}\\.x$', {}, '000.x'],
  ['ab', { minLength: 4 }, 'abaa'],
])('pattern %s %o: %s', (pattern, bounds, expected) => {
  const value = patternValue(pattern, bounds);
  expect(value).toBe(expected);
  expect(new RegExp(pattern, 'u').test(value)).toBe(true);
});

it.each([
  ['^\\p{Lu}{3}$', {}, /the escape \\p/],
  ['^(a)\\1$', {}, /the escape \\1/],
  ['^(?=a)a$', {}, /lookaround/],
  ['^[a-z]{3}$', { minLength: 5 }, /within minLength 5/],
  ['^([a-z]', {}, /not a valid regular expression/],
])('pattern %s %o: no value, and the reason', (pattern, bounds, reason) => {
  expect(() => patternValue(pattern, bounds)).toThrow(UngenerableValueError);
  expect(() => patternValue(pattern, bounds)).toThrow(reason);
});

it('each pattern mutation of a general pattern breaks the pattern and nothing else', () => {
  const schema = {
    type: 'object',
    properties: { digest: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$', maxLength: 71 } },
    required: ['digest'],
  };
  const valid = fullValidValue(schema) as { digest: string };
  expect(valid.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  const misses = mutationsOf(schema).filter((mutation) => mutation.constraint === 'pattern');
  expect(misses.length).toBeGreaterThan(2);
  for (const miss of misses) {
    const digest = (miss.value as { digest: string }).digest;
    expect(digest).not.toMatch(/^sha256:[0-9a-f]{64}$/);
    expect([...digest].length).toBeLessThanOrEqual(71);
  }
});

it('a type list with null: the value is of the other type, and null is no type mutation', () => {
  const schema = { type: 'object', properties: { note: { type: ['string', 'null'], maxLength: 4 } } };
  expect(fullValidValue(schema)).toEqual({ note: 'v' });
  const atNote = mutationsOf(schema).filter((mutation) => mutation.pointer === '/note');
  expect(atNote.map((mutation) => (mutation.value as { note: unknown }).note)).not.toContain(null);
  expect(atNote.map((mutation) => mutation.constraint)).toEqual(expect.arrayContaining(['type', 'maxLength']));
  // null is sent as a valid value instead: a server that refuses it fails.
  expect(boundariesOf(schema).map((boundary) => boundary.value)).toContainEqual({ note: null });
});

it('a format other than uri gets no guessed value, and the reason', () => {
  const schema = { type: 'object', properties: { contact: { type: 'string', format: 'email' } } };
  expect(() => fullValidValue(schema)).toThrow(UngenerableValueError);
  expect(() => fullValidValue(schema)).toThrow("no value is built for format 'email'");
});

it('a const is the valid value, and an enum of one to mutate', () => {
  const schema = { type: 'object', properties: { priority: { type: 'string', const: 'low' } } };
  expect(fullValidValue(schema)).toEqual({ priority: 'low' });
  const values = mutationsOf(schema)
    .filter((mutation) => mutation.constraint === 'enum')
    .map((mutation) => (mutation.value as { priority: unknown }).priority);
  expect(values).toEqual(expect.arrayContaining(['NOT_A_LISTED_VALUE', 'LOW']));
});
