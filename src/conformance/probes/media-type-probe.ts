/**
 * @module conformance/probes/media-type-probe
 * The request media type (docs/assumptions.md A-21): a valid JSON body sent under another
 * Content-Type, or none, must be refused with 415; the documented type spelt another equivalent
 * way (a charset parameter, upper case) must be accepted like the plain one. The body is always
 * the same valid one, so the media type is the only thing that differs from an accepted request.
 */
import type { OperationDescription } from '../../openapi/document.js';
import type { ExpectedRejection } from '../exchange.js';
import { fullValidValue } from '../generators/mutations.js';
import { equivalentMediaTypes, type MediaTypeCase, unsupportedMediaTypes } from '../generators/near-misses.js';
import type { ProbeContext, ProbeRequest } from './probe-context.js';
import { buildRequest, jsonBodySchema } from './request-builder.js';

const unsupported: ExpectedRejection = { status: 415, because: 'a request body must be application/json (A-21)' };

/** The documented JSON media type of an operation's body (application/json in this contract). */
function documentedMediaType(operation: OperationDescription): string {
  return Object.keys(operation.requestBody?.content ?? {}).find((type) => /json/i.test(type)) ?? 'application/json';
}

/** A valid request of `operation` whose Content-Type is the case's (removed when it has none). */
function requestWith(context: ProbeContext, operation: OperationDescription, mediaType: MediaTypeCase, purpose: string): ProbeRequest {
  const schema = jsonBodySchema(operation)!;
  const request = buildRequest({
    operation,
    seed: context.seed,
    runId: context.runId,
    purpose: `${purpose}:${mediaType.description}`,
    body: { value: fullValidValue(schema) },
  });
  const { 'content-type': _json, ...headers } = request.headers ?? {};
  return { ...request, headers: mediaType.contentType === undefined ? headers : { ...headers, 'content-type': mediaType.contentType } };
}

/** Each operation with a JSON body, its valid body under each unsupported media type: 415 due. */
export async function unsupportedMediaTypeProbe(context: ProbeContext): Promise<void> {
  for (const operation of context.contract.operations) {
    if (!jsonBodySchema(operation)) continue;
    for (const mediaType of unsupportedMediaTypes(documentedMediaType(operation))) {
      await context.send(requestWith(context, operation, mediaType, 'media-type'), {
        kind: 'media-type',
        ...(mediaType.contentType === undefined ? {} : { contentType: mediaType.contentType }),
        description: mediaType.description,
        expected: unsupported,
      });
    }
  }
}

/** Each operation with a JSON body, its valid body under equivalent spellings of its media type: accepted. */
export async function equivalentMediaTypeProbe(context: ProbeContext): Promise<void> {
  for (const operation of context.contract.operations) {
    if (!jsonBodySchema(operation)) continue;
    for (const mediaType of equivalentMediaTypes(documentedMediaType(operation))) {
      await context.send(requestWith(context, operation, mediaType, 'media-type-equivalent'), {
        kind: 'positive',
        source: 'boundary',
        description: `valid body sent with ${mediaType.description} (A-21)`,
      });
    }
  }
}
