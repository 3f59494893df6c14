/**
 * Pattern containment (src/evolution/pattern-containment.ts, A-47): decided for classes,
 * literals, counted repeats and alternations, undecided (with a reason) beyond them, and always
 * in agreement with what the patterns match on sample strings.
 */
import { expect, it } from 'vitest';
import { compareRegexLanguages } from '../../src/evolution/pattern-containment.js';

it.each([
  ['^[0-9a-f]{64}$', '^[0-9a-fA-F]{64}$', 'widens'],
  ['^[0-9a-fA-F]{64}$', '^[0-9a-f]{64}$', 'narrows'],
  ['^[0-9a-f]{64}$', '^[a-f0-9]{64}$', 'equal'],
  ['^[0-9]{3}$', '^\\d{3}$', 'equal'],
  ['^[0-9a-f]{64}$', '^[0-9a-f]{32}$', 'both'],
  ['^[0-9a-f]{32,64}$', '^[0-9a-f]{40}$', 'narrows'],
  ['^op-', '^op-[0-9]+$', 'narrows'],
  ['^op-', 'op-', 'widens'],
  ['^(op|run)-[0-9]{4}$', '^(op|run|job)-[0-9]{4,6}$', 'widens'],
  ['^(?:sha256|sha512):[0-9a-f]+$', '^sha256:[0-9a-f]+$', 'narrows'],
  ['^[^/]+$', '^[a-z]+$', 'narrows'],
  ['^a.c$', '^a[bc]c$', 'narrows'],
  ['^urn:', '^https:', 'both'],
  ['^[a-z]*$', '^[a-z]+$', 'narrows'],
  ['^\\u0041{2}$', '^AA$', 'equal'],
])('%s → %s %s', (old, next, relation) => {
  expect(compareRegexLanguages(old, next)).toEqual({ relation });
});

it.each([
  ['^(?=[0-9a-f]*$).{64}$', /lookaround/],
  ['^(a)\\1$', /escape \\1/],
  ['^\\bword$', /escape \\b/],
  ['^\\p{L}+$', /escape \\p/],
  ['^a$|^b|c(^d)', /inside a branch/],
  ['^((a{30}){30}){30}$', /over 4000 states/],
])('leaves %s undecided, saying why', (pattern, reason) => {
  const comparison = compareRegexLanguages('^[0-9a-f]{64}$', pattern);
  expect('undecided' in comparison && comparison.undecided).toMatch(reason);
});

it('agrees with RegExp on every sample string for each decided pair', () => {
  const samples = [
    '',
    'a',
    'A',
    'op-1234',
    'job-123456',
    'run-12',
    'sha256:ab',
    'sha512:ab',
    'abc',
    'a/c',
    'f'.repeat(64),
    'F'.repeat(64),
    '0'.repeat(40),
    'urn:x',
    'https:x',
  ];
  const pairs = [
    ['^[0-9a-f]{64}$', '^[0-9a-fA-F]{64}$'],
    ['^[0-9a-f]{32,64}$', '^[0-9a-f]{40}$'],
    ['^(op|run)-[0-9]{4}$', '^(op|run|job)-[0-9]{4,6}$'],
    ['^(?:sha256|sha512):[0-9a-f]+$', '^sha256:[0-9a-f]+$'],
    ['^urn:', '^https:'],
  ] as const;
  for (const [old, next] of pairs) {
    const result = compareRegexLanguages(old, next) as { relation: string };
    const [before, after] = [new RegExp(old, 'u'), new RegExp(next, 'u')];
    for (const sample of samples) {
      if (before.test(sample) && !after.test(sample)) expect(['narrows', 'both'], `${old} ${next} ${sample}`).toContain(result.relation);
      if (after.test(sample) && !before.test(sample)) expect(['widens', 'both'], `${old} ${next} ${sample}`).toContain(result.relation);
    }
  }
});
