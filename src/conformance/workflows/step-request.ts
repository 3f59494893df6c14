/**
 * @module conformance/workflows/step-request
 * How a workflow step becomes a request: the operation it names in the run's spec, its
 * parameters (the workflow's, then its own; component references resolved), its request body
 * with replacements, every runtime expression resolved in the step's scope.
 */
import { fillPathTemplate } from '../../contract/path-template.js';
import type { ContractDocument, OperationDescription } from '../../openapi/document.js';
import { isCredentialHeader } from '../http/curl.js';
import type { ProbeRequest } from '../probes/probe-context.js';
import { type ArazzoDocument, componentName, type ParameterObject, type Step, type Workflow } from './arazzo-document.js';
import {
  ByteBudget,
  defaultMaxRequestBytes,
  type ExchangeView,
  type ExpressionScope,
  followPointer,
  resolveValue,
  setOwn,
} from './runtime-expressions.js';

/** A parameter as a step sends it (a reference replaced by its component). */
export interface StepParameter {
  readonly name: string;
  readonly in?: string | undefined;
  readonly value: unknown;
}

/**
 * The contract operation a step names: by operationId (`$sourceDescriptions.NAME.ID` names the
 * source too; the run has one spec) or by operationPath (`…#/paths/~1v0~1jobs~1{jobId}/get`).
 */
export function operationOfStep(
  step: Pick<Step, 'operationId' | 'operationPath'>,
  contract: Pick<ContractDocument, 'operations'>,
): OperationDescription | undefined {
  if (step.operationId !== undefined) {
    const id = step.operationId.startsWith('$sourceDescriptions.') ? step.operationId.split('.').slice(2).join('.') : step.operationId;
    return contract.operations.find((operation) => operation.operationId === id);
  }
  const pointer = /#(\/paths\/.+)$/.exec(step.operationPath ?? '')?.[1];
  if (!pointer) return undefined;
  const [, , path, method] = pointer.split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  return contract.operations.find((operation) => operation.path === path && operation.method === method?.toLowerCase());
}

/** The step's parameters: the workflow's, then the step's own over them (same name and place), references resolved. */
export function stepParameters(step: Step, workflow: Workflow, document: ArazzoDocument): StepParameter[] {
  const components = document.components?.parameters ?? {};
  const resolve = (parameter: ParameterObject): StepParameter | undefined => {
    if ('reference' in parameter && typeof parameter.reference === 'string') {
      const name = componentName(parameter.reference, 'parameters');
      const component = name === undefined ? undefined : components[name];
      if (!component || 'reference' in component) return undefined;
      return { name: component.name as string, in: component.in as string | undefined, value: parameter.value ?? component.value };
    }
    return parameter as { name: string; in?: string; value: unknown };
  };
  const all = [...(workflow.parameters ?? []), ...(step.parameters ?? [])].map(resolve).filter((parameter) => parameter !== undefined);
  const byPlace = new Map<string, StepParameter>();
  for (const parameter of all)
    byPlace.set(`${parameter.in ?? ''}:${parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name}`, parameter);
  return [...byPlace.values()];
}

/** The request of a step, every expression resolved; or what could not be resolved. */
export function buildStepRequest(options: {
  readonly step: Step;
  readonly workflow: Workflow;
  readonly document: ArazzoDocument;
  readonly operation: OperationDescription | undefined;
  readonly scope: ExpressionScope;
  /** The first caller's credential header names (--header). */
  readonly credentialHeaders: readonly string[];
  /** Where the run's spec was read from, for the message when an operation is missing. */
  readonly specSource: string;
  /** Most bytes the request is built from (parameters and body); default `defaultMaxRequestBytes`. */
  readonly maxRequestBytes?: number;
}): { request: ProbeRequest; view: Omit<ExchangeView, 'statusCode' | 'response'> } | { problem: string } {
  const { step, operation, scope } = options;
  if (!operation)
    return {
      problem: `the spec has no operation ${step.operationId ?? step.operationPath} (the run's --spec: ${options.specSource})`,
    };
  const path: Record<string, string> = {};
  const query: Record<string, string> = {};
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  // One budget for the whole request: parameters, payload and replacements together.
  const budget = new ByteBudget(options.maxRequestBytes ?? defaultMaxRequestBytes);
  for (const parameter of stepParameters(step, options.workflow, options.document)) {
    const value = resolveValue(parameter.value, scope, { budget });
    if (!value.found) return { problem: `parameter ${parameter.name}: ${value.reason}` };
    const text = typeof value.value === 'string' ? value.value : JSON.stringify(value.value);
    if (parameter.in === 'path') path[parameter.name] = text;
    else if (parameter.in === 'query') query[parameter.name] = text;
    else if (parameter.in === 'header') headers[parameter.name] = text;
    else if (parameter.in === 'cookie') cookies.push(`${parameter.name}=${text}`);
  }
  if (cookies.length > 0) headers.Cookie = cookies.join('; ');
  let body: unknown;
  let bodyText: string | undefined;
  const requestBody = step.requestBody;
  if (requestBody && requestBody.payload !== undefined) {
    const payload = resolveValue(requestBody.payload, scope, { budget });
    if (!payload.found) return { problem: `requestBody: ${payload.reason}` };
    body = structuredClone(payload.value);
    for (const replacement of requestBody.replacements ?? []) {
      const value = resolveValue(replacement.value, scope, { budget });
      if (!value.found) return { problem: `replacement ${replacement.target}: ${value.reason}` };
      const replaced = replaceAt(body, replacement.target, value.value);
      if (typeof replaced === 'string') return { problem: `replacement ${replacement.target}: ${replaced}` };
      body = replaced.value;
    }
    const contentType = requestBody.contentType ?? 'application/json';
    bodyText = typeof body === 'string' && !/json/i.test(contentType) ? body : JSON.stringify(body);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = contentType;
  }
  for (const name of Object.keys(path))
    if (!operation.path.includes(`{${name}}`)) return { problem: `path parameter ${name} is not in ${operation.path}` };
  const filled = fillPathTemplate(operation.path, (name) => encodeURIComponent(path[name] ?? ''));
  const search = new URLSearchParams(query).toString();
  // A step that sets credentials of its own reads as another caller: it goes as caller 2, so its
  // curl line reads them from $EH_SECOND_… rather than showing the first caller's variable.
  const ownCredentials = Object.keys(headers).some(
    (name) => isCredentialHeader(name) || options.credentialHeaders.some((given) => given.toLowerCase() === name.toLowerCase()),
  );
  const request: ProbeRequest = {
    operation,
    method: operation.method.toUpperCase(),
    path: search ? `${filled}?${search}` : filled,
    headers,
    ...(ownCredentials ? { caller: 2 as const } : {}),
    ...(bodyText === undefined ? {} : { body: bodyText }),
  };
  return { request, view: { url: filled, method: request.method, request: { headers, query, path, body } } };
}

/** Sets the value at a JSON Pointer in a copy of `body`; a string says why it cannot. */
export function replaceAt(body: unknown, target: string, value: unknown): { value: unknown } | string {
  const pointer = target.startsWith('#') ? target.slice(1) : target;
  if (pointer === '') return { value };
  if (!pointer.startsWith('/')) return 'only JSON Pointer targets (/a/b) are supported';
  const tokens = pointer.slice(1).split('/');
  const last = tokens.pop()!.replace(/~1/g, '/').replace(/~0/g, '~');
  const parentPointer = tokens.length === 0 ? '' : `/${tokens.join('/')}`;
  const parent = followPointer(body, parentPointer);
  if (!parent.found || !parent.value || typeof parent.value !== 'object') return `nothing to set at ${target}`;
  if (Array.isArray(parent.value)) {
    if (!/^\d+$/.test(last) || Number(last) > parent.value.length) return `no item ${last} at ${parentPointer || '/'}`;
    parent.value[Number(last)] = value;
  } else setOwn(parent.value as Record<string, unknown>, last, value);
  return { value: body };
}
