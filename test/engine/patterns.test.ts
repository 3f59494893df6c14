/**
 * Scenario patterns: checked without running them, refused where RE2 would refuse or run them
 * slowly, and — where accepted — matching exactly what JavaScript's RegExp matches.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { checkPattern, compilePattern, maxPatternProgram } from '../../src/engine/patterns.js';

const seed = Number(process.env.PATTERN_SEED ?? 20261123);

it.each([
  ['(?<=a)b', /lookahead or lookbehind/],
  ['a(?!b)', /lookahead or lookbehind/],
  ['(a)\\1', /backreference/],
  ['(?<n>a)\\k<n>', /backreference/],
  ['\\p{Script=Greek}', /only general categories/],
  ['\\p{Letter}', /only general categories/],
  ['[\\b]', /\\x08/],
  ['a{129}', /a count is at most 128/],
  ['(?:\\S{100}|\\S{99}|\\S{98}|\\S{97}|\\S{96}|\\S{95}|\\S{94}|\\S{93}|\\S{92}|\\S{91})', /at most 1000/],
  ['(', /valid regular expression/],
  ['a'.repeat(257), /at most 256/],
])('refuses %s before compiling it', (source, reason) => {
  expect(checkPattern(source)).toMatch(reason);
});

it('estimates no less than RE2 compiles, for the patterns it accepts', async () => {
  for (const source of ['^fail-', '\\S{100}', '(.*a){100}', '(?:a|b){10}c', '\\p{Lu}{50}', '^[a-z0-9-]{1,64}$', '(x+x+)+y']) {
    const checked = checkPattern(source);
    if (typeof checked === 'string') throw new Error(`${source}: ${checked}`);
    const compiled = await compilePattern(source);
    expect(compiled.programSize, source).toBeLessThanOrEqual(Math.max(checked.estimatedProgram, 10));
    expect(compiled.programSize).toBeLessThanOrEqual(maxPatternProgram);
  }
});

it('matches what JavaScript’s RegExp matches, \\s, \\S and . included (seeded)', async () => {
  const sources = [
    '^\\s$',
    '^\\S+$',
    '^.$',
    '^a.c$',
    '[\\s]x',
    '^[^\\s]+$',
    '^fail-',
    '\\d{3}',
    '^\\w+$',
    '\\p{Lu}',
    '(a|b)+c$',
    '^(a+)+$',
  ];
  const compiled = await Promise.all(sources.map((source) => compilePattern(source)));
  const alphabet = ['a', 'b', 'c', 'x', 'A', '1', '-', ' ', '\t', '\n', '\r', '\v', '\u00a0', '\u2028', '\u3000', 'é', 'Σ', '😀'];
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 12 }), (chars) => {
      const text = chars.join('');
      sources.forEach((source, index) => {
        expect(compiled[index]!.test(text), `${source} on ${JSON.stringify(text)}`).toBe(new RegExp(source, 'u').test(text));
      });
    }),
    { seed, numRuns: 2000 },
  );
});
