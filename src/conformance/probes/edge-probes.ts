/**
 * @module conformance/probes/edge-probes
 * Valid inputs at the edges real servers trip on (issue 23): positive inputs (a refusal fails
 * positive_data_acceptance, a 5xx not_a_server_error), and unknown jobs (unknown_job_not_found):
 * - the largest valid body of each operation with a body, in UTF-8 as it is and in its
 *   costliest spelling (every character `\u`-escaped, within the body limit of A-13);
 * - odd but valid strings (lone surrogates, control characters, combining and bidi marks, …)
 *   in every string field, one class per request;
 * - getJob with jobIds holding reserved or encoded characters, and with the dot segments.
 * Everything comes from the document and src/contract's limits; a few requests per operation.
 */
import { bodyLimits } from '../../contract/index.js';
import type { JsonSchema, OperationDescription } from '../../openapi/document.js';
import { costliestJson, largestValue, utf8Length } from '../generators/largest-value.js';
import { fullValidValue } from '../generators/mutations.js';
import { oddStringClasses, withOddStrings } from '../generators/odd-strings.js';
import { oddPathValues } from '../generators/path-values.js';
import { contractOperationIds } from './contract-operations.js';
import type { ProbeContext } from './probe-context.js';
import { buildRequest, jsonBodySchema, parametersIn } from './request-builder.js';

/** The body limit in bytes of an operation (docs/assumptions.md A-13), by the contract's operationIds. */
export function bodyLimitOf(operationId: string): number | undefined {
  if (operationId === contractOperationIds.create) return bodyLimits.createEvaluationBytes;
  if (operationId === contractOperationIds.verify) return bodyLimits.verifyReportBytes;
  return undefined;
}

function operationsWithBodies(context: ProbeContext): { operation: OperationDescription; schema: JsonSchema }[] {
  return context.contract.operations.flatMap((operation) => {
    const schema = jsonBodySchema(operation);
    return schema ? [{ operation, schema }] : [];
  });
}

const isValid = (context: ProbeContext, schema: JsonSchema, value: unknown) => context.validator.validateSchema(schema, value).length === 0;

async function sendBody(
  context: ProbeContext,
  options: { operation: OperationDescription; edge: 'largest-body' | 'odd-strings'; description: string; raw: string },
): Promise<void> {
  const request = buildRequest({
    operation: options.operation,
    seed: context.seed,
    runId: context.runId,
    purpose: `${options.edge}:${options.description}`,
    body: { raw: options.raw },
  });
  await context.send(request, { kind: 'positive', source: options.edge, description: options.description });
}

/**
 * The largest valid body of each operation with one, twice: in UTF-8 as it is (4 bytes per
 * character of the free strings), and with as many characters `\u`-escaped as the body limit
 * allows (12 bytes per 4-byte character: a body as large as the contract and A-13 allow).
 */
export async function largestBodyProbe(context: ProbeContext): Promise<void> {
  for (const { operation, schema } of operationsWithBodies(context)) {
    let value: unknown;
    try {
      value = largestValue(schema);
    } catch (error) {
      context.note(`${operation.operationId}: no largest valid body could be built (${(error as Error).message}); not sent`);
      continue;
    }
    if (!isValid(context, schema, value)) {
      context.note(`${operation.operationId}: the largest body built is not valid against its schema; not sent`);
      continue;
    }
    const what = 'the largest valid body (every array at its maxItems, every string at its maxLength, in 4-byte characters where free)';
    const plain = JSON.stringify(value);
    await sendBody(context, {
      operation,
      edge: 'largest-body',
      description: `${what}, in UTF-8 as it is: ${utf8Length(plain)} bytes`,
      raw: plain,
    });
    const limit = bodyLimitOf(operation.operationId);
    if (limit === undefined) continue;
    const costliest = costliestJson(value, limit);
    if (!costliest) {
      context.note(
        `${operation.operationId}: the largest valid body is over its ${limit}-byte body limit (A-13); its escaped spelling was not sent`,
      );
      continue;
    }
    await sendBody(context, {
      operation,
      edge: 'largest-body',
      description: `${what}, ${costliest.everyCharacterEscaped ? 'every character' : 'characters'} \\u-escaped within the ${limit}-byte body limit (A-13): ${costliest.bytes} bytes`,
      raw: costliest.text,
    });
  }
}

/** One request per class of odd strings and operation with a body, the class in every string field that can hold it. */
export async function oddStringsProbe(context: ProbeContext): Promise<void> {
  for (const { operation, schema } of operationsWithBodies(context)) {
    const base = fullValidValue(schema);
    for (const odd of oddStringClasses) {
      const { value, pointers } = withOddStrings({ schema, base, text: odd.text, accepts: (field, text) => isValid(context, field, text) });
      if (pointers.length === 0) continue;
      if (!isValid(context, schema, value)) {
        context.note(`${operation.operationId}: the body with ${odd.name} is not valid against its schema; not sent`);
        continue;
      }
      await sendBody(context, {
        operation,
        edge: 'odd-strings',
        description: `odd but valid strings in ${pointers.join(', ')}: ${odd.description}`,
        // JSON.stringify writes a lone surrogate and the C0 controls as \u escapes (well-formed JSON.stringify, ES2019).
        raw: JSON.stringify(value),
      });
    }
  }
}

/**
 * getJob with jobIds no job has, holding reserved or encoded characters. A dot segment is sent
 * as it is, outside the contract: once resolved it names another path (`/v0/jobs/..` is `/v0/`),
 * so only unknown_job_not_found judges its answer (a 4xx, never a 5xx).
 */
export async function pathCharactersProbe(context: ProbeContext): Promise<void> {
  const read = context.contract.operations.find((operation) => operation.operationId === contractOperationIds.read);
  const parameter = read ? parametersIn(read, 'path')[0] : undefined;
  if (!read || !parameter) return;
  for (const odd of oddPathValues(parameter.schema, (value) => isValid(context, parameter.schema, value))) {
    const request = buildRequest({
      operation: read,
      seed: context.seed,
      runId: context.runId,
      purpose: `path-characters:${odd.value}`,
      path: { [parameter.name]: odd.value },
    });
    const { operation: _contractOperation, ...outsideTheContract } = request;
    await context.send(odd.dotSegment ? outsideTheContract : request, {
      kind: 'unknown-job',
      description: odd.description,
      ...(odd.dotSegment ? { dotSegment: true } : {}),
    });
  }
}
