/**
 * @module conformance/pact/pact-check
 * The checks a pact adds to a run: `pact_interaction_matches` (required) judges each
 * interaction's answer against the response the pact expects, and
 * `pact_pending_interaction_matches` (advisory) does the same for V4 interactions marked
 * pending, which a consumer has published but a provider need not honour yet. A failure names
 * the interaction, then each path (status, a header, a body path) with what was expected and
 * what came back; the run adds the curl line. The expected responses are kept per run
 * (PactExpectations), since ProviderState values (a jobId) are only known once a state is set up.
 */
import { answered, type Check, type CheckContext, forIntent, unlessRateLimited } from '../checks/check.js';
import type { Exchange } from '../exchange.js';
import { quoted } from '../exchange.js';
import { fail, pass, unjudged, type Verdict } from '../failures.js';
import { type Mismatch, TooComplexToMatch } from './body-matching.js';
import { type ExpectedResponse, matchResponse } from './response-matching.js';

export const pactCheckNames = { required: 'pact_interaction_matches', pending: 'pact_pending_interaction_matches' } as const;

/** The expected response of each interaction as last sent, by its index in the pact. */
export class PactExpectations {
  private readonly byIndex = new Map<number, { expected: ExpectedResponse; pending: boolean }>();

  set(index: number, expectation: { expected: ExpectedResponse; pending: boolean }): void {
    this.byIndex.set(index, expectation);
  }

  get(index: number): { expected: ExpectedResponse; pending: boolean } | undefined {
    return this.byIndex.get(index);
  }
}

function listed(mismatches: readonly Mismatch[], field: 'expected' | 'received'): string {
  return mismatches.map((mismatch) => `${mismatch.path}: ${mismatch[field]}`).join('; ');
}

function judgeInteraction(
  exchange: Exchange & { intent: { kind: 'pact' } },
  context: CheckContext,
  options: { expectations: PactExpectations; pending: boolean },
): Verdict {
  const { expectations, pending } = options;
  const expectation = expectations.get(exchange.intent.index);
  // Each check judges its own half of the pact: pending interactions are advisory.
  if (!expectation || expectation.pending !== pending) return { outcome: 'skip' };
  const interaction = `'${quoted(exchange.intent.interaction)}'`;
  return unlessRateLimited(
    answered(`the response of the pact interaction ${interaction}`, (answer) => {
      let mismatches: Mismatch[];
      try {
        mismatches = matchResponse(expectation.expected, answer.response);
      } catch (error) {
        if (error instanceof TooComplexToMatch) return unjudged(`the answer is too large to match against the pact (${error.message})`);
        throw error;
      }
      if (mismatches.length === 0) return pass;
      const first = mismatches[0]!;
      return fail({
        title: `interaction ${interaction}: ${first.path}${mismatches.length > 1 ? ` (and ${mismatches.length - 1} more)` : ''}`,
        expected: listed(mismatches, 'expected'),
        received: listed(mismatches, 'received'),
      });
    }),
  )(exchange, context);
}

/**
 * The pact checks of a run, reading that run's expectations: the pending one only when the pact
 * has pending interactions, so a run does not list a check with nothing it could ever judge.
 */
export function pactChecks(expectations: PactExpectations, options: { pending: boolean }): Check[] {
  const check = (pending: boolean): Check => ({
    name: pending ? pactCheckNames.pending : pactCheckNames.required,
    description: pending
      ? "each pending interaction of the pact (V4 `pending`) gets the response the pact expects; advisory until the consumer's pact is no longer pending"
      : 'each interaction of the pact (--pact) gets the response the pact expects: status, headers and body under its matching rules',
    severity: pending ? 'advisory' : 'required',
    probes: ['pact'],
    judge: forIntent(['pact'], (exchange, context) => judgeInteraction(exchange, context, { expectations, pending })),
  });
  return options.pending ? [check(false), check(true)] : [check(false)];
}
