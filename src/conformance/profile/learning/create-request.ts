/**
 * @module conformance/profile/learning/create-request
 * The valid createEvaluation request the strictness and order questions start from (the
 * contract's first example), and the oddities they add to it, each built the same way for
 * the learner and for a `--profile` run, so both ask the same questions.
 */
import type { OperationDescription } from '../../../openapi/document.js';
import { contractOperationIds } from '../../probes/contract-operations.js';
import { requestExamples } from '../../probes/data-probes.js';
import type { ProbeContext, ProbeRequest } from '../../probes/probe-context.js';
import { buildRequest, jsonBodySchema } from '../../probes/request-builder.js';

/** The create operation and a valid body of it, or undefined when the contract has neither. */
export function validCreate(context: ProbeContext): { operation: OperationDescription; body: Record<string, unknown> } | undefined {
  const operation = context.contract.operations.find((candidate) => candidate.operationId === contractOperationIds.create);
  if (!operation || !context.includes(operation)) return undefined;
  const body = requestExamples(operation).find(
    (example): example is Record<string, unknown> =>
      typeof example === 'object' && example !== null && !Array.isArray(example) && Object.keys(example).length > 0,
  );
  return body ? { operation, body } : undefined;
}

/** A member of the body set to a value of another JSON type: invalid whatever else the server allows. */
export function wrongTypeMember(body: Record<string, unknown>): { name: string; value: unknown } {
  const name = Object.keys(body)[0]!;
  return { name, value: typeof body[name] === 'string' ? 7 : 'eh-not-the-documented-type' };
}

/** A string member of the body with a maxLength, and a value one character over it. */
export function overMaximumMember(operation: OperationDescription): { name: string; value: string } | undefined {
  const properties = (jsonBodySchema(operation)?.properties ?? {}) as Record<
    string,
    { type?: unknown; maxLength?: unknown; pattern?: unknown }
  >;
  const names = Object.keys(properties).sort((a, b) => (a === 'operationId' ? -1 : b === 'operationId' ? 1 : 0));
  const name = names.find(
    (candidate) =>
      properties[candidate]?.type === 'string' && typeof properties[candidate]?.maxLength === 'number' && !properties[candidate]?.pattern,
  );
  return name ? { name, value: 'x'.repeat((properties[name]!.maxLength as number) + 1) } : undefined;
}

/** The create request with `raw` as its body and the headers changed as given (undefined: left out). */
export function createRequest(options: {
  context: ProbeContext;
  operation: OperationDescription;
  purpose: string;
  raw: string;
  headers?: Readonly<Record<string, string | undefined>>;
}): ProbeRequest {
  const { context, operation } = options;
  const built = buildRequest({ operation, seed: context.seed, runId: context.runId, purpose: options.purpose, body: { raw: options.raw } });
  const headers: Record<string, string> = { ...built.headers };
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    if (value !== undefined) headers[name] = value;
  }
  return { ...built, headers };
}

/** The Idempotency-Key a request carries (buildRequest gives each a fresh one). */
export function keyOf(request: ProbeRequest): string | undefined {
  const entry = Object.entries(request.headers ?? {}).find(([name]) => name.toLowerCase() === 'idempotency-key');
  return entry?.[1];
}
