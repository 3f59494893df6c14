/**
 * @module conformance/pact/pact-phase
 * The run's phase for --pact: each HTTP interaction in the file's order — its provider states set
 * up, its generators applied, its request sent through the runner's sender (so --max-requests,
 * --time-budget, --timeout and the caller's credentials hold as for any probe) and its answer
 * judged by the pact checks and the runner's own response checks. An interaction whose state
 * could not be set up is not sent, and counted as not sent with the reason.
 */

import type { ProbeContext } from '../probes/probe-context.js';
import { pathFitsTemplate } from '../runner/sender.js';
import type { PactExpectations } from './pact-check.js';
import type { Pact, PactInteraction } from './pact-file.js';
import { expectedResponseOf, generateRequest, type MaterialRequest, materialOf, probeRequestOf } from './pact-request.js';
import type { StateSetup } from './provider-states.js';

export interface PactPhaseOptions {
  readonly pact: Pact;
  readonly expectations: PactExpectations;
  readonly states: StateSetup;
}

function operationFor(context: ProbeContext, request: MaterialRequest) {
  return context.contract.operations.find(
    (operation) => operation.method.toUpperCase() === request.method && pathFitsTemplate(request.path, operation.path),
  );
}

/** The contract's longest Idempotency-Key. */
const maxKeyLength = 128;

/**
 * The request with an Idempotency-Key of this run and interaction in place of a literal one. A
 * pact's keys are literals (its consumer's test run chose them), so against a provider that
 * lives longer than one verification, or that has seen another interaction of the same pact, a
 * literal key would already be bound: "no job was created with this key" would be false and
 * "the key was used with another body" would meet its own earlier job. A key the pact generates
 * is left as it is.
 */
function withRunKey(request: MaterialRequest, options: { interaction: PactInteraction; runId: string }): MaterialRequest {
  const isKey = (name: string) => name.toLowerCase() === 'idempotency-key';
  if (options.interaction.request.generators.headers.some(([name]) => isKey(name))) return request;
  if (!request.headers.some(([name]) => isKey(name))) return request;
  const prefix = `${options.runId}.${options.interaction.index}.`;
  return {
    ...request,
    headers: request.headers.map(([name, value]) => (isKey(name) ? [name, `${prefix}${value}`.slice(0, maxKeyLength)] : [name, value])),
  };
}

function statesOf(interaction: PactInteraction): string[] {
  return interaction.states.map((state) => state.name);
}

async function verifyInteraction(context: ProbeContext, interaction: PactInteraction, options: PactPhaseOptions): Promise<void> {
  const notes: string[] = [];
  const params = Object.assign({}, ...interaction.states.map((state) => state.params)) as Record<string, unknown>;
  // Random values are made once, before the state: a state keyed on the request's Idempotency-Key sees the key sent.
  const generated = generateRequest(materialOf(interaction.request), interaction.request.generators, {
    values: params,
    mode: 'all',
    notes: [],
  });
  const first = options.states.runKeys ? withRunKey(generated, { interaction, runId: context.runId }) : generated;
  const intent = { kind: 'pact', interaction: interaction.description, index: interaction.index, states: statesOf(interaction) } as const;
  // Known before the state is set up, so that an interaction not sent still counts for its check.
  options.expectations.set(interaction.index, { expected: expectedResponseOf(interaction, params, []), pending: interaction.pending });
  const outcome = await options.states.setUp({ interaction, request: first, context });
  if ('notSetUp' in outcome) {
    const request = probeRequestOf(first, { operation: operationFor(context, first), credentialHeaders: context.credentialHeaders });
    // The reason names the interaction: the closing notes and the check's note group reasons by their text.
    const reason = `pact interaction '${interaction.description.slice(0, 80)}': ${outcome.notSetUp}`;
    if (context.notSent) context.notSent(request, intent, reason);
    else context.note(`${reason} (not sent)`);
    return;
  }
  const values = { ...params, ...outcome.values };
  const sent = generateRequest(first, interaction.request.generators, { values, mode: 'provider-state', notes });
  options.expectations.set(interaction.index, { expected: expectedResponseOf(interaction, values, notes), pending: interaction.pending });
  for (const note of new Set(notes)) context.note(`pact interaction '${interaction.description.slice(0, 80)}': ${note}`);
  try {
    await context.send(
      probeRequestOf(sent, { operation: operationFor(context, sent), credentialHeaders: context.credentialHeaders }),
      intent,
    );
  } finally {
    await outcome.teardown?.();
  }
}

/** The phase's function: every HTTP interaction of the pact, one at a time. */
export function pactPhase(options: PactPhaseOptions): (context: ProbeContext) => Promise<void> {
  return async (context) => {
    for (const interaction of options.pact.interactions) await verifyInteraction(context, interaction, options);
  };
}
