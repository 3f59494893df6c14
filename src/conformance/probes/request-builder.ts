/**
 * @module conformance/probes/request-builder
 * Builds the request for one operation of the spec from chosen parameter values and a body:
 * fills the path template, adds declared header parameters (a fresh Idempotency-Key-like value
 * for each required string header unless one is given), and serialises the JSON body.
 */
import { fillPathTemplate } from '../../contract/path-template.js';
import type { JsonSchema, OperationDescription, ParameterDescription } from '../../openapi/document.js';
import { fullValidValue } from '../generators/mutations.js';
import { fitToLength, idempotencyKeyFor, type ProbeRequest } from './probe-context.js';

export interface BuildOptions {
  readonly operation: OperationDescription;
  readonly seed: number;
  /** The run's id: with the seed, it makes the Idempotency-Keys (see idempotencyKeyFor). */
  readonly runId: string;
  /** Names the request, so its generated header values differ from other requests'. */
  readonly purpose: string;
  /** Path parameter values (unencoded); missing ones get a valid default. */
  readonly path?: Readonly<Record<string, string>>;
  /** Header parameter values; missing required ones get a fresh valid value. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Header parameters to leave out. */
  readonly omitHeaders?: readonly string[];
  /** The body as a value (serialised as JSON) or as raw text. */
  readonly body?: { readonly value: unknown } | { readonly raw: string };
  readonly caller?: 1 | 2;
}

/** The JSON request-body schema of an operation, if it has one. */
export function jsonBodySchema(operation: OperationDescription): JsonSchema | undefined {
  const content = operation.requestBody?.content ?? {};
  const mediaType = Object.keys(content).find((candidate) => /^application\/([\w.+-]+\+)?json$/i.test(candidate));
  return mediaType ? content[mediaType] : undefined;
}

export function parametersIn(operation: OperationDescription, location: ParameterDescription['in']): ParameterDescription[] {
  return operation.parameters.filter((parameter) => parameter.in === location);
}

/** A valid value for a path parameter, for requests that do not vary it. */
export function defaultPathValue(parameter: ParameterDescription): string {
  const value = fullValidValue(parameter.schema);
  return typeof value === 'string' ? value : String(value);
}

/** Encodes one path segment; dot segments are avoided by the generators, as URLs resolve them. */
export function encodeSegment(value: string): string {
  return encodeURIComponent(value);
}

export function buildRequest(options: BuildOptions): ProbeRequest {
  const { operation } = options;
  const path = fillPathTemplate(operation.path, (name) => {
    const parameter = operation.parameters.find((candidate) => candidate.in === 'path' && candidate.name === name);
    const value = options.path?.[name] ?? (parameter ? defaultPathValue(parameter) : '');
    return encodeSegment(value);
  });
  const body = options.body === undefined ? undefined : 'raw' in options.body ? options.body.raw : JSON.stringify(options.body.value);
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  for (const parameter of parametersIn(operation, 'header')) {
    if (options.omitHeaders?.includes(parameter.name)) continue;
    const given = options.headers?.[parameter.name];
    if (given !== undefined) headers[parameter.name] = given;
    else if (parameter.required) headers[parameter.name] = freshHeaderValue(parameter, options, body ?? '');
  }
  return {
    operation,
    method: operation.method.toUpperCase(),
    path,
    headers,
    ...(body === undefined ? {} : { body }),
    ...(options.caller ? { caller: options.caller } : {}),
  };
}

/**
 * A fresh value for a required header: a key derived from the seed, run id, purpose and body when the
 * schema is a plain string (an Idempotency-Key), else the schema's own valid value.
 */
export function freshHeaderValue(
  parameter: ParameterDescription,
  options: { seed: number; runId: string; purpose: string },
  body: string,
): string {
  const schema = parameter.schema;
  if (schema.type === 'string' && !schema.pattern && !schema.enum && !schema.format) {
    return fitToLength(
      idempotencyKeyFor({ seed: options.seed, runId: options.runId, purpose: `${options.purpose}:${parameter.name}`, body }),
      schema,
    );
  }
  return String(fullValidValue(schema));
}
