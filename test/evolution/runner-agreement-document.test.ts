/**
 * `diff`'s servers axis against the runner for the rules on the whole document and on one
 * operation (A-46; how a pair is run: test/support/rule-agreement.ts).
 */
import { it } from 'vitest';
import { expectAgreement, pairName } from '../support/rule-agreement.js';
import { documentPairs } from '../support/rule-pairs/document-pairs.js';

it.each(documentPairs.map((pair, index) => [pairName(pair, index), pair] as const))(
  '%s: breaks servers exactly when the runner fails a server implementing OLD',
  async (_name, pair) => expectAgreement(pair),
  180_000,
);
