/**
 * The node:http adapter's direct path keeps Fetch's header semantics: trimHttpWhitespace trims
 * exactly what Headers.get trims (tab, LF, CR and space; nothing else, nothing inside), checked
 * against undici's Headers on seeded random values.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { trimHttpWhitespace } from '../../src/server/node-adapter.js';

const seed = Number(process.env.FUZZ_SEED ?? 10);

it('trims as Headers.get does, on seeded values of whitespace and other characters', () => {
  const piece = fc.constantFrom(' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', 'a', 'b c', '', '\u3000');
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
      const value = pieces.join('');
      // Headers refuses CR, LF and NUL left inside a value; compare the trim only where it accepts one.
      let expected: string | null;
      try {
        expected = new Headers({ x: value }).get('x');
      } catch {
        return;
      }
      expect(trimHttpWhitespace(value), JSON.stringify(value)).toBe(expected);
    }),
    { seed, numRuns: 2000 },
  );
});

it('returns the value itself when there is nothing to trim, and an empty string for whitespace only', () => {
  const value = `a${' '.repeat(16_000)}b`;
  expect(trimHttpWhitespace(value)).toBe(value);
  expect(trimHttpWhitespace(' \t\r\n'.repeat(4_000))).toBe('');
  expect(trimHttpWhitespace('\u00a0x\u00a0')).toBe('\u00a0x\u00a0');
});
