/**
 * @module proxy/request-rules
 * What the client sent, judged against the spec: the client's side of an exchange the proxy
 * saw. Each rule has a name (reported as the violation's `check`, with `side: "request"`) and
 * the same meaning the runner gives the matching response rule: a request breaking
 * `request_body_schema` is the input `negative_data_rejection` expects a 400 for.
 */

import { essence } from '../contract/media-type.js';
import { compilePathTemplate, type PathTemplate } from '../contract/path-template.js';
import type { OperationDescription } from '../openapi/document.js';
import type { ResponseValidator } from '../openapi/response-validator.js';

export interface RequestViolation {
  readonly check: RequestRuleName;
  readonly message: string;
  /** Which part of the request breaks which constraint: what profile-intent.ts reads a situation from. */
  readonly detail?: ViolationDetail;
}

/**
 * The one problem a violation names, in the runner's terms (its negative intents' location,
 * pointer and constraint): a path or header parameter by its name, a body value by its JSON
 * Pointer, `required` for a parameter that is missing.
 */
export type ViolationDetail =
  | { readonly kind: 'unknown-route'; readonly declaredMethods: readonly string[]; readonly emptyParameter?: string }
  | { readonly kind: 'parameter'; readonly location: 'header' | 'path'; readonly name: string; readonly constraints: readonly string[] }
  | { readonly kind: 'media-type'; readonly contentType?: string }
  | { readonly kind: 'json' }
  | { readonly kind: 'body'; readonly problems: readonly { readonly pointer: string; readonly constraint: string }[] };

export const requestRules = {
  request_operation_known: 'the request targets an operation of the contract (a documented method and path)',
  request_media_type: 'a request with a body sends Content-Type: application/json (docs/assumptions.md A-21)',
  request_json_valid: 'a request body is one well-formed JSON document',
  request_body_schema: 'a request body is valid against its operation’s schema',
  request_parameters: 'required header and path parameters are present and valid against their schemas',
} as const;

export type RequestRuleName = keyof typeof requestRules;

export interface ObservedRequest {
  readonly method: string;
  /** The path, without the query, as the client sent it. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  /** The body was longer than what was kept: its schema is not judged. */
  readonly bodyCut: boolean;
}

/** Each operation's path template, compiled once. */
const compiledPaths = new WeakMap<OperationDescription, PathTemplate>();

function compiledPath(operation: OperationDescription): PathTemplate {
  let compiled = compiledPaths.get(operation);
  if (!compiled) {
    compiled = compilePathTemplate(operation.path);
    compiledPaths.set(operation, compiled);
  }
  return compiled;
}

/** The operation of the spec a request targets, with its path parameters (decoded). */
export function matchOperation(
  operations: readonly OperationDescription[],
  request: { method: string; path: string },
): { operation: OperationDescription; pathParameters: Record<string, string> } | undefined {
  // HEAD is GET without the body (RFC 9110 §9.3.2), as the mock's router treats it.
  const method = request.method.toUpperCase() === 'HEAD' ? 'GET' : request.method.toUpperCase();
  for (const operation of operations) {
    if (operation.method.toUpperCase() !== method) continue;
    const match = compiledPath(operation).match(request.path);
    if (!match) continue;
    const pathParameters: Record<string, string> = {};
    for (const [name, value] of Object.entries(match)) {
      try {
        pathParameters[name] = decodeURIComponent(value);
      } catch {
        pathParameters[name] = value;
      }
    }
    return { operation, pathParameters };
  }
  return undefined;
}

function headerValue(headers: ObservedRequest['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

const shown = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}…` : text);

/** Every rule the request breaks; empty for a request the contract allows. */
export function judgeRequest(options: {
  readonly request: ObservedRequest;
  readonly operations: readonly OperationDescription[];
  readonly validator: ResponseValidator;
}): { readonly operation?: OperationDescription; readonly violations: readonly RequestViolation[]; readonly json?: unknown } {
  const { request, validator } = options;
  const matched = matchOperation(options.operations, request);
  if (!matched)
    return {
      violations: [
        {
          check: 'request_operation_known',
          message: `${request.method} ${shown(request.path)} is no operation of the contract`,
          detail: routeDetail(options.operations, request.path),
        },
      ],
    };
  const { operation, pathParameters } = matched;
  const violations: RequestViolation[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'header' && parameter.in !== 'path') continue;
    const value = parameter.in === 'path' ? pathParameters[parameter.name] : headerValue(request.headers, parameter.name);
    if (value === undefined) {
      if (parameter.required)
        violations.push({
          check: 'request_parameters',
          message: `the required ${parameter.in} parameter ${parameter.name} is missing`,
          detail: { kind: 'parameter', location: parameter.in, name: parameter.name, constraints: ['required'] },
        });
      continue;
    }
    const problems = validator.validateSchema(parameter.schema, value);
    if (problems.length > 0)
      violations.push({
        check: 'request_parameters',
        message: `${parameter.in} parameter ${parameter.name}: ${problems.map((problem) => problem.message).join('; ')}`,
        detail: {
          kind: 'parameter',
          location: parameter.in,
          name: parameter.name,
          constraints: problems.map((problem) => problem.keyword),
        },
      });
  }
  const content = operation.requestBody?.content ?? {};
  const schema = content['application/json'];
  if (!operation.requestBody) return { operation, violations };
  const contentType = headerValue(request.headers, 'content-type');
  if (essence(contentType) !== 'application/json')
    violations.push({
      check: 'request_media_type',
      message:
        contentType === undefined
          ? 'the body has no Content-Type (application/json is due)'
          : `Content-Type ${shown(contentType)} instead of application/json`,
      detail: { kind: 'media-type', ...(contentType === undefined ? {} : { contentType: contentType.slice(0, 200) }) },
    });
  if (request.bodyCut) return { operation, violations };
  let json: unknown;
  try {
    json = JSON.parse(request.body.toString('utf8'));
  } catch (error) {
    violations.push({
      check: 'request_json_valid',
      message: request.body.length === 0 ? 'the body is empty (a JSON object is due)' : `the body is not JSON: ${(error as Error).message}`,
      detail: { kind: 'json' },
    });
    return { operation, violations };
  }
  if (schema) {
    const problems = validator.validateSchema(schema, json);
    if (problems.length > 0)
      violations.push({
        check: 'request_body_schema',
        message: problems
          .slice(0, 5)
          .map((problem) => problem.message)
          .join('; '),
        detail: {
          kind: 'body',
          problems: problems.slice(0, 8).map((problem) => ({ pointer: problem.pointer, constraint: problem.keyword })),
        },
      });
  }
  return { operation, violations, json };
}

/**
 * Why a path is no operation: the methods its path declares (none: a path outside the contract),
 * and the parameter left empty when it is an operation's path but for that (`/v0/jobs/`).
 */
function routeDetail(operations: readonly OperationDescription[], path: string): ViolationDetail {
  const declaredMethods = operations
    .filter((operation) => compiledPath(operation).match(path))
    .map((operation) => operation.method.toUpperCase());
  if (declaredMethods.length > 0) return { kind: 'unknown-route', declaredMethods };
  for (const operation of operations) {
    const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
    for (const name of names) {
      // The operation's path with this parameter empty: a segment the template leaves open, sent as nothing.
      const filled = operation.path.replace(/\{([^}]+)\}/g, (_whole, other: string) => (other === name ? '' : '\u0000'));
      const pattern = new RegExp(`^${filled.split('\u0000').map(escapeRegExp).join('[^/]+')}$`);
      if (pattern.test(path)) return { kind: 'unknown-route', declaredMethods: [], emptyParameter: name };
    }
  }
  return { kind: 'unknown-route', declaredMethods: [] };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
