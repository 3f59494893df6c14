/**
 * @module conformance/probes/assumption-probes
 * Requests for advisory checks of docs/assumptions.md: an oversized createEvaluation body
 * a method no contract path declares, and a path outside the contract.
 */
import { bodyLimits } from '../../contract/index.js';
import { fillPathTemplate } from '../../contract/path-template.js';
import { httpMethods } from '../../openapi/document.js';
import { contractOperationIds } from './contract-operations.js';
import type { ProbeContext } from './probe-context.js';
import { buildRequest } from './request-builder.js';

/** A JSON object one byte over createEvaluation's body limit. */
export async function oversizedBodyProbe(context: ProbeContext): Promise<void> {
  const create = context.contract.operations.find((operation) => operation.operationId === contractOperationIds.create);
  if (!create) return;
  const bytes = bodyLimits.createEvaluationBytes + 1;
  const raw = `{"padding":"${'x'.repeat(bytes - '{"padding":""}'.length)}"}`;
  const request = buildRequest({ operation: create, seed: context.seed, runId: context.runId, purpose: 'oversized-body', body: { raw } });
  await context.send(request, {
    kind: 'oversized-body',
    bytes,
    expected: { status: 413, because: `a body over createEvaluation's ${bodyLimits.createEvaluationBytes}-byte limit (A-13)` },
  });
}

/** Per contract path, one method it does not declare (DELETE when free). */
export async function undeclaredMethodProbe(context: ProbeContext): Promise<void> {
  const paths = [...new Set(context.contract.operations.map((operation) => operation.path))];
  for (const template of paths) {
    const declared = new Set(
      context.contract.operations.filter((operation) => operation.path === template).map((operation) => operation.method),
    );
    const method =
      (['delete', 'patch', 'put'] as const).find((candidate) => !declared.has(candidate)) ??
      httpMethods.find((candidate) => !declared.has(candidate));
    if (!method) continue;
    const path = fillPathTemplate(template, () => 'v');
    await context.send({ method: method.toUpperCase(), path }, { kind: 'undeclared-method', method: method.toUpperCase(), path });
  }
}

export async function undeclaredPathProbe(context: ProbeContext): Promise<void> {
  const path = '/eh-undeclared-path/not-in-the-contract';
  await context.send({ method: 'GET', path }, { kind: 'undeclared-path', path });
}
