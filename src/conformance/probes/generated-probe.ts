/**
 * @module conformance/probes/generated-probe
 * Property-based positive data: for each operation with inputs, fast-check generates
 * schema-valid bodies and path parameters from the spec (seeded), sends them, and on the first
 * answer that fails a check shrinks the input to a smaller one that still fails. Only that
 * smallest counterexample is recorded as a failure; the larger failing inputs met on the way
 * are not, so one defect is reported once, with the simplest reproduction.
 */
import fc from 'fast-check';
import type { OperationDescription } from '../../openapi/document.js';
import type { Exchange } from '../exchange.js';
import { arbitraryFromSchema } from '../generators/schema-arbitrary.js';
import { deriveSeed, type ProbeContext } from './probe-context.js';
import { buildRequest, jsonBodySchema, parametersIn } from './request-builder.js';

/** At most this many requests go to shrinking one counterexample. */
const shrinkRequestLimit = 40;

interface GeneratedInput {
  readonly body?: unknown;
  readonly path: Record<string, string>;
}

function inputArbitrary(operation: OperationDescription): fc.Arbitrary<GeneratedInput> | undefined {
  const bodySchema = jsonBodySchema(operation);
  const pathParameters = parametersIn(operation, 'path');
  if (!bodySchema && pathParameters.length === 0) return undefined;
  const path: Record<string, fc.Arbitrary<string>> = {};
  for (const parameter of pathParameters) {
    // "." and ".." are dot segments: a URL resolves them away, so they cannot name a resource.
    path[parameter.name] = (arbitraryFromSchema(parameter.schema) as fc.Arbitrary<string>).filter(
      (value) => value !== '.' && value !== '..',
    );
  }
  return fc.record({
    ...(bodySchema ? { body: arbitraryFromSchema(bodySchema) } : {}),
    path: fc.record(path),
  }) as fc.Arbitrary<GeneratedInput>;
}

/**
 * Ends fast-check's runs, its shrinking too, once the run is stopped: each further run would
 * only plan a request the run refuses. fast-check reads a precondition failure that interrupts
 * as "stop here", not as a failure of the property.
 */
function endsWhenAborted<T>(signal: AbortSignal): fc.Plugin<T> {
  return () => ({
    decorateRun: (run) => (value) => (signal.aborted ? Promise.resolve(new fc.PreconditionFailure(true)) : run(value)),
  });
}

export async function generatedProbe(context: ProbeContext): Promise<void> {
  if (context.examplesPerOperation === 0) {
    context.note('no generated inputs (--max-examples 0)');
    return;
  }
  const candidates: { operation: OperationDescription; arbitrary: fc.Arbitrary<GeneratedInput> }[] = [];
  for (const operation of context.contract.operations) {
    // An operation the filters leave out takes no share of the budget.
    if (!context.includes(operation)) continue;
    try {
      const arbitrary = inputArbitrary(operation);
      if (arbitrary) candidates.push({ operation, arbitrary });
    } catch (error) {
      context.note(`${operation.operationId}: no generated inputs: ${(error as Error).message}`);
    }
  }
  for (const [index, { operation, arbitrary }] of candidates.entries()) {
    if (context.stopped.aborted) return;
    const share = Math.floor(context.remainingRequests() / (candidates.length - index));
    const numRuns = Math.min(context.examplesPerOperation, share);
    if (numRuns < 1) {
      context.note(`${operation.operationId}: no generated inputs (--max-requests used up)`);
      continue;
    }
    const seed = deriveSeed(context.seed, `generated:${operation.operationId}`);
    let lastFailing: Exchange | undefined;
    let failures = 0;
    let run = 0;
    const details = await fc.check(
      fc.asyncProperty(arbitrary, async (input) => {
        run += 1;
        if (failures > shrinkRequestLimit) return true;
        const request = buildRequest({
          operation,
          seed: context.seed,
          runId: context.runId,
          purpose: `generated:${run}`,
          path: input.path,
          ...('body' in input ? { body: { value: input.body } } : {}),
        });
        const exchange = await context.send(
          request,
          { kind: 'positive', source: 'generated', description: `generated input (fast-check seed ${seed})` },
          { record: false },
        );
        if (!exchange) return true; // budget used up: nothing learnt
        if (context.conforms(exchange)) {
          context.record(exchange);
          return true;
        }
        failures += 1;
        lastFailing = exchange;
        return false;
      }),
      { seed, numRuns, plugins: [endsWhenAborted(context.stopped)] },
    );
    if (details.failed && lastFailing) {
      // The last failing run is fast-check's shrunk counterexample: recorded once, saying so.
      const failing: Exchange = lastFailing;
      context.record({
        ...failing,
        intent: {
          kind: 'positive',
          source: 'generated',
          description: `generated input, shrunk after ${details.numShrinks} step(s) (fast-check seed ${seed}, path ${details.counterexamplePath ?? '-'})`,
        },
      });
    }
  }
}
