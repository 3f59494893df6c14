/**
 * `diff`'s servers axis against the runner for the rules on what a server answers (A-46; how a
 * pair is run: test/support/rule-agreement.ts).
 */
import { it } from 'vitest';
import { expectAgreement, pairName } from '../support/rule-agreement.js';
import { responsePairs } from '../support/rule-pairs/response-pairs.js';

it.each(responsePairs.map((pair, index) => [pairName(pair, index), pair] as const))(
  '%s: breaks servers exactly when the runner fails a server implementing OLD',
  async (_name, pair) => expectAgreement(pair),
  180_000,
);
