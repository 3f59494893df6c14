/**
 * @module conformance/pact/pact-request
 * An interaction's request as it is sent, and its response as it is expected, with the pact's
 * generators applied: the request's random values made once (before its provider state is set
 * up, so that a state keyed on its Idempotency-Key sees the key that will be sent), then its
 * ProviderState values once the state gave them; the expected response takes ProviderState
 * values only.
 */
import type { OperationDescription } from '../../openapi/document.js';
import type { ProbeRequest } from '../probes/probe-context.js';
import { applyBodyGenerators, type GeneratorMode, type GeneratorSet, generate, type StateValues } from './generators.js';
import type { PactBody, PactInteraction, PactRequest } from './pact-file.js';
import type { ExpectedResponse } from './response-matching.js';

/** A request with concrete values: what generators change and what is sent. */
export interface MaterialRequest {
  readonly method: string;
  readonly path: string;
  readonly query: readonly (readonly [string, string])[];
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: PactBody;
}

interface GenerateOptions {
  readonly values: StateValues;
  readonly mode: GeneratorMode;
  /** Where a generator that kept its example says so. */
  readonly notes: string[];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function replaced(
  pairs: readonly (readonly [string, string])[],
  generators: GeneratorSet['headers'],
  options: GenerateOptions & { caseless: boolean },
): [string, string][] {
  const result = pairs.map(([name, value]): [string, string] => [name, value]);
  const same = (a: string, b: string) => (options.caseless ? a.toLowerCase() === b.toLowerCase() : a === b);
  for (const [name, generator] of generators) {
    const made = generate(generator, options);
    if (made === undefined) continue;
    const at = result.findIndex(([existing]) => same(existing, name));
    if (at >= 0) result[at] = [result[at]![0], text(made)];
    else result.push([name, text(made)]);
  }
  return result;
}

function generatedBody(body: PactBody | undefined, generators: GeneratorSet['body'], options: GenerateOptions): PactBody | undefined {
  if (!body || generators.length === 0) return body;
  if (body.kind === 'json') return { ...body, value: applyBodyGenerators(body.value, generators, options) };
  const root = generators.find((entry) => entry.expression.tokens.length === 0);
  const made = root ? generate(root.generator, options) : undefined;
  return made === undefined ? body : { ...body, text: text(made) };
}

/** The request with the generators `options.mode` selects applied. */
export function generateRequest(request: MaterialRequest, generators: GeneratorSet, options: GenerateOptions): MaterialRequest {
  const path = generators.path ? generate(generators.path, options) : undefined;
  const body = generatedBody(request.body, generators.body, options);
  return {
    method: request.method,
    path: typeof path === 'string' && path.startsWith('/') ? path : request.path,
    query: replaced(request.query, generators.query, { ...options, caseless: false }),
    headers: replaced(request.headers, generators.headers, { ...options, caseless: true }),
    ...(body ? { body } : {}),
  };
}

export function materialOf(request: PactRequest): MaterialRequest {
  return {
    method: request.method,
    path: request.path,
    query: request.query,
    headers: request.headers,
    ...(request.body ? { body: request.body } : {}),
  };
}

/** The expected response of an interaction, its ProviderState values filled in. */
export function expectedResponseOf(interaction: PactInteraction, values: StateValues, notes: string[]): ExpectedResponse {
  const { response } = interaction;
  const options = { values, mode: 'provider-state' as const, notes };
  const body = generatedBody(response.body, response.generators.body, options);
  return {
    status: response.status,
    headers: replaced(response.headers, response.generators.headers, { ...options, caseless: true }),
    ...(body ? { body } : {}),
    rules: response.rules,
  };
}

/** A path as sent: characters a URL cannot carry are percent-encoded, what is already encoded is kept. */
export function encodedPath(path: string): string {
  return path.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/gu, (char) => encodeURIComponent(char));
}

/** The body as sent: JSON serialised, text as it is. */
export function bodyText(body: PactBody | undefined): string | undefined {
  if (!body) return undefined;
  return body.kind === 'json' ? JSON.stringify(body.value) : body.text;
}

/** The header's value in a request, by name in any case. */
export function headerValue(request: MaterialRequest, name: string): string | undefined {
  return request.headers.find(([header]) => header.toLowerCase() === name.toLowerCase())?.[1];
}

const framingHeaders = ['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer'];

/**
 * The request the runner sends. Headers the run's callers set (--header) replace the pact's of
 * the same name: a consumer's test token must not stand in for the provider's credentials.
 * Framing headers (Host, Content-Length…) are left to the transport.
 */
export function probeRequestOf(
  request: MaterialRequest,
  options: { operation: OperationDescription | undefined; credentialHeaders: readonly string[] },
): ProbeRequest {
  // The transport frames the request itself: a recorded Host or Content-Length would lie about it.
  const own = new Set([...options.credentialHeaders.map((name) => name.toLowerCase()), ...framingHeaders]);
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers) if (!own.has(name.toLowerCase())) headers[name] = value;
  const body = bodyText(request.body);
  if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
    headers['content-type'] = request.body?.contentType ?? (request.body?.kind === 'json' ? 'application/json' : 'text/plain');
  const query = request.query.length > 0 ? `?${new URLSearchParams(request.query.map(([key, value]) => [key, value])).toString()}` : '';
  return {
    ...(options.operation ? { operation: options.operation } : {}),
    method: request.method,
    path: `${encodedPath(request.path)}${query}`,
    headers,
    ...(body === undefined ? {} : { body }),
  };
}
