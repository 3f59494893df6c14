/**
 * @module conformance/probes/data-probes
 * Requests about inputs, driven only by the OpenAPI document: for every operation its
 * documented examples, boundary values, one single-constraint mutation per constraint of its
 * body, header and path parameters, a request missing each required header, and malformed JSON.
 */
import type { JsonSchema, OperationDescription } from '../../openapi/document.js';
import type { ConstraintTarget, ExpectedRejection } from '../exchange.js';
import { type Boundary, boundariesOf, fullValidValue, type Mutation, mutationsOf } from '../generators/mutations.js';
import { malformedJsonVariants } from '../generators/near-misses.js';
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
      for (const group of sameValues(boundariesOf(bodySchema))) {
        await send(context, operation, 'boundary', `body ${group.map((boundary) => boundary.description).join('; ')}`, {
          body: { value: group[0]!.value },
          targets: group.map((boundary) => ({ location: 'body', pointer: boundary.pointer, constraint: boundary.constraint })),
        });
      }
    }
    const base = bodySchema ? { body: { value: fullValidValue(bodySchema) } } : {};
    for (const parameter of parametersIn(operation, 'path')) {
      for (const group of sameValues(boundariesOf(parameter.schema, defaultPathValue(parameter)))) {
        const description = group.map((boundary) => boundary.description.replace(/^\/: /, '')).join('; ');
        await send(context, operation, 'boundary', `path parameter ${parameter.name} ${description}`, {
          ...base,
          path: { [parameter.name]: String(group[0]!.value) },
          targets: group.map((boundary) => ({ location: 'path', pointer: parameter.name, constraint: boundary.constraint })),
        });
      }
    }
    for (const parameter of parametersIn(operation, 'header')) {
      const valid = freshHeaderValue(
        parameter,
        { seed: context.seed, runId: context.runId, purpose: `boundary:${operation.operationId}` },
        '',
      );
      // Values not expressible in a header (astral characters) are left out.
      const sendable = boundariesOf(parameter.schema, valid).filter((boundary) => isSendableHeaderValue(boundary.value));
      for (const group of sameValues(sendable)) {
        const description = group.map((boundary) => boundary.description.replace(/^\/: /, '')).join('; ');
        await send(context, operation, 'boundary', `header ${parameter.name} ${description}`, {
          ...base,
          headers: { [parameter.name]: group[0]!.value as string },
          targets: group.map((boundary) => ({ location: 'header', pointer: parameter.name, constraint: boundary.constraint })),
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
  input: Partial<Parameters<typeof buildRequest>[0]> & { targets?: readonly ConstraintTarget[] },
): Promise<void> {
  const { targets, ...build } = input;
  await context.send(buildRequest({ operation, seed: context.seed, runId: context.runId, purpose: `${source}:${description}`, ...build }), {
    kind: 'positive',
    source,
    description,
    ...(targets ? { targets } : {}),
  });
}

/**
 * Boundaries grouped by value, in order: one value can sit on several limits at once (a
 * one-item list whose item has one-character strings sits on minItems and each minLength), and
 * is sent once, naming them all.
 */
function sameValues(boundaries: readonly Boundary[]): Boundary[][] {
  const groups = new Map<string, Boundary[]>();
  for (const boundary of boundaries) {
    const key = JSON.stringify(boundary.value);
    groups.set(key, [...(groups.get(key) ?? []), boundary]);
  }
  return [...groups.values()];
}

/**
 * The mutations worth a request: one per distinct value, and only values the spec's own
 * schema rejects (a near miss that happens to be valid would be a false failure).
 */
function distinctInvalid(context: ProbeContext, schema: JsonSchema, mutations: readonly Mutation[]): Mutation[] {
  const seen = new Set<string>();
  return mutations.filter((mutation) => {
    const key = JSON.stringify(mutation.value);
    if (seen.has(key)) return false;
    seen.add(key);
    return context.validator.validateSchema(schema, mutation.value).length > 0;
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
      for (const mutation of distinctInvalid(context, bodySchema, mutationsOf(bodySchema, baseBody))) {
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
        for (const mutation of distinctInvalid(context, parameter.schema, mutationsOf(parameter.schema, valid))) {
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

/**
 * Malformed variants of a valid body to every operation with a JSON body: truncated, with
 * trailing data, a comment, single quotes, NaN, a trailing comma. Each is the valid body to a
 * forgiving parser, so a server that accepts one answers as if the input were valid.
 */
export async function malformedJsonProbe(context: ProbeContext): Promise<void> {
  for (const operation of context.contract.operations) {
    const bodySchema: JsonSchema | undefined = jsonBodySchema(operation);
    if (!bodySchema) continue;
    const valid = fullValidValue(bodySchema);
    if (!valid || typeof valid !== 'object' || Array.isArray(valid)) continue;
    for (const variant of malformedJsonVariants(valid as Record<string, unknown>)) {
      const request = buildRequest({
        operation,
        seed: context.seed,
        runId: context.runId,
        purpose: `malformed-json:${variant.description}`,
        body: { raw: variant.raw },
      });
      const exchange = await context.send(request, {
        kind: 'malformed-json',
        description: variant.description,
        expected: expectedRejection(operation, false),
      });
      // A server that does not answer malformed JSON (Prism 5 hangs) has failed the check with
      // the first variant; more timeouts in a row would stop the whole operation.
      if (exchange && (!exchange.response || exchange.response.incomplete)) {
        context.note(
          `${operation.operationId}: malformed JSON got no whole answer, so its other malformed variants were not sent (one fails malformed_json_rejected; more would stop the operation)`,
        );
        break;
      }
    }
  }
}
