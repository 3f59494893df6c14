/**
 * Every rule of `diff` has at least one pair its servers axis is held to the runner by
 * (test/evolution/runner-agreement-*.test.ts, A-46): a rule added without one fails here, in
 * `npm test`, before the slow project would have nothing to say about it.
 */
import { expect, it } from 'vitest';
import { rules } from '../../src/evolution/rules/registry.js';
import { documentPairs } from '../support/rule-pairs/document-pairs.js';
import { requestPairs } from '../support/rule-pairs/request-pairs.js';
import { responsePairs } from '../support/rule-pairs/response-pairs.js';

const pairs = [...requestPairs, ...responsePairs, ...documentPairs];

it('every rule in the registry has a runner-backed pair', () => {
  const covered = new Set(pairs.map((pair) => pair.rule));
  expect(rules.map((rule) => rule.name).filter((name) => !covered.has(name))).toEqual([]);
});

it('every pair names a rule in the registry', () => {
  const known = new Set(rules.map((rule) => rule.name));
  expect(pairs.map((pair) => pair.rule).filter((name) => !known.has(name))).toEqual([]);
});
