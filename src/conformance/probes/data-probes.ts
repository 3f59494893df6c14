/**
 * @module conformance/probes/data-probes
 * Requests about inputs, driven only by the OpenAPI document: for every operation its
 * documented examples, boundary values, one single-constraint mutation per constraint of its
 * body, header and path parameters, a request missing each required header, and malformed JSON.
 */
import type { JsonSchema, OperationDescription } from '../../openapi/document.js';
import type { ExpectedRejection } from '../exchange.js';
import { boundariesOf, fullValidValue, mutationsOf } from '../generators/mutations.js';
import { contractOperationIds } from './contract-operations.js';
import { isSendableHeaderValue, type ProbeContext } from './probe-context.js';
import { buildRequest, defaultPathValue, freshHeaderValue, jsonBodySchema, parametersIn } from './request-builder.js';

/** The documented rejection for an input breaking one constraint (docs/assumptions.md ). */
export function expectedRejection(operation: OperationDescription, overMaximum: boolean): ExpectedRejection {
  const documents = (status: string) => operation.responses.some((response) => response.status === status);
  if (overMaximum && documents('413')) return { status: 413, because: 'a value over a maximum, and the operation documents 413 (A-2)' };
  if (documents('400'))
    return { status: 400, because: overMaximum ? 'the operation documents 400 but no 413 (A-2)' : 'invalid input (A-2)' };
  return { status: 'any-4xx', because: 'the operation documents no 400; a 4xx with an Error body (A-23)' };
}

/** The request-body examples of an operation: media-type examples, then the schema's own. */
export function requestExamples(operation: OperationDescription): unknown[] {
  const schema = jsonBodySchema(operation);
  if (!schema) return [];
  const mediaType = Object.keys(operation.requestBody?.examples ?? {})[0];
  const fromMedia = mediaType ? (operation.requestBody?.examples[mediaType] ?? []) : [];
  const fromSchema = Array.isArray(schema.examples) ? schema.examples : [];
  return [...fromMedia, ...fromSchema];
}

/** Documented examples and boundary values: each must be accepted. */
export async function positiveProbe(context: ProbeContext): Promise<void> {
  for (const operation of context.contract.operations) {
    const bodySchema = jsonBodySchema(operation);
    // verifyReport's examples are the verification probe's inputs, judged there by the stricter
    // verification_result (200 and a valid result); sending them twice would report one defect twice.
    const examples =
      operation.operationId === contractOperationIds.verify && context.runs('verification') ? [] : requestExamples(operation);
    if (!bodySchema) {
      await send(context, operation, 'example', 'no input beyond defaults', {});
    }
    for (const [index, example] of examples.entries()) {
      if (context.validator.validateSchema(bodySchema!, example).length > 0) {
        context.note(`${operation.operationId}: request example ${index + 1} is not valid against its own schema; not sent`);
        continue;
      }
      await send(context, operation, 'example', `request example ${index + 1}`, { body: { value: example } });
    }
    if (bodySchema) {
      for (const boundary of boundariesOf(bodySchema)) {
        await send(context, operation, 'boundary', `body ${boundary.description}`, { body: { value: boundary.value } });
      }
    }
    const base = bodySchema ? { body: { value: fullValidValue(bodySchema) } } : {};
    for (const parameter of parametersIn(operation, 'path')) {
      for (const boundary of boundariesOf(parameter.schema, defaultPathValue(parameter))) {
        await send(context, operation, 'boundary', `path parameter ${parameter.name} ${boundary.description.replace(/^\/: /, '')}`, {
          ...base,
          path: { [parameter.name]: String(boundary.value) },
        });
      }
    }
    for (const parameter of parametersIn(operation, 'header')) {
      const valid = freshHeaderValue(
        parameter,
        { seed: context.seed, runId: context.runId, purpose: `boundary:${operation.operationId}` },
        '',
      );
      for (const boundary of boundariesOf(parameter.schema, valid)) {
        if (!isSendableHeaderValue(boundary.value)) continue; // not expressible in a header
        await send(context, operation, 'boundary', `header ${parameter.name} ${boundary.description.replace(/^\/: /, '')}`, {
          ...base,
          headers: { [parameter.name]: boundary.value },
        });
      }
    }
  }
}

async function send(
  context: ProbeContext,
  operation: OperationDescription,
  source: 'example' | 'boundary',
  description: string,
  input: Partial<Parameters<typeof buildRequest>[0]>,
): Promise<void> {
  await context.send(buildRequest({ operation, seed: context.seed, runId: context.runId, purpose: `${source}:${description}`, ...input }), {
    kind: 'positive',
    source,
    description,
  });
}

/**
 * One request per single-constraint mutation of each body, header and path parameter. A request
 * refused (an operation stopped after its timeouts, the budget out) does not end the probe:
 * other operations' mutations still go, and each refused one is counted.
 */
export async function negativeProbe(context: ProbeContext): Promise<void> {
  for (const operation of context.contract.operations) {
    const bodySchema = jsonBodySchema(operation);
    const baseBody = bodySchema ? fullValidValue(bodySchema) : undefined;
    const base = bodySchema ? { body: { value: baseBody } } : {};
    if (bodySchema) {
      for (const mutation of mutationsOf(bodySchema, baseBody)) {
        const request = buildRequest({
          operation,
          seed: context.seed,
          runId: context.runId,
          purpose: `negative:${mutation.description}`,
          body: { value: mutation.value },
        });
        await context.send(request, {
          kind: 'negative',
          location: 'body',
          pointer: mutation.pointer,
          constraint: mutation.constraint,
          overMaximum: mutation.overMaximum,
          description: `body ${mutation.description}`,
          expected: expectedRejection(operation, mutation.overMaximum),
        });
      }
    }
    for (const location of ['header', 'path'] as const) {
      for (const parameter of parametersIn(operation, location)) {
        const valid =
          location === 'path'
            ? defaultPathValue(parameter)
            : freshHeaderValue(parameter, { seed: context.seed, runId: context.runId, purpose: `negative:${operation.operationId}` }, '');
        for (const mutation of mutationsOf(parameter.schema, valid)) {
          // Headers and path segments are text: a "number instead of a string" cannot be sent.
          if (mutation.constraint === 'type') continue;
          if (location === 'header' && !isSendableHeaderValue(mutation.value)) continue;
          const description = `${location} ${parameter.name} ${mutation.description.replace(/^\/: /, '')}`;
          const request = buildRequest({
            operation,
            seed: context.seed,
            runId: context.runId,
            purpose: `negative:${description}`,
            ...base,
            ...(location === 'path'
              ? { path: { [parameter.name]: String(mutation.value) } }
              : { headers: { [parameter.name]: String(mutation.value) } }),
          });
          await context.send(request, {
            kind: 'negative',
            location,
            pointer: parameter.name,
            constraint: mutation.constraint,
            overMaximum: mutation.overMaximum,
            description,
            expected: expectedRejection(operation, mutation.overMaximum),
          });
        }
      }
    }
  }
}

/** A valid request without each required header in turn. */
export async function missingHeaderProbe(context: ProbeContext): Promise<void> {
  for (const operation of context.contract.operations) {
    const bodySchema = jsonBodySchema(operation);
    for (const parameter of parametersIn(operation, 'header').filter((candidate) => candidate.required)) {
      const request = buildRequest({
        operation,
        seed: context.seed,
        runId: context.runId,
        purpose: `missing:${parameter.name}`,
        omitHeaders: [parameter.name],
        ...(bodySchema ? { body: { value: fullValidValue(bodySchema) } } : {}),
      });
      await context.send(request, { kind: 'missing-header', header: parameter.name, expected: expectedRejection(operation, false) });
    }
  }
}

/** A truncated JSON document to every operation with a JSON body. */
export async function malformedJsonProbe(context: ProbeContext): Promise<void> {
  for (const operation of context.contract.operations) {
    const bodySchema: JsonSchema | undefined = jsonBodySchema(operation);
    if (!bodySchema) continue;
    const whole = JSON.stringify(fullValidValue(bodySchema));
    const raw = whole.slice(0, Math.max(2, Math.floor(whole.length / 2)));
    const request = buildRequest({ operation, seed: context.seed, runId: context.runId, purpose: 'malformed-json', body: { raw } });
    await context.send(request, { kind: 'malformed-json', expected: expectedRejection(operation, false) });
  }
}
