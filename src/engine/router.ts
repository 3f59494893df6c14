/**
 * @module engine/router
 * Stage 1 of the pipeline: maps a method and path to an operation of the contract, or to the
 * 404/405 the contract leaves to `default` (docs/assumptions.md A-20).
 */
import type { EngineError } from './responses.js';

export type OperationId = 'health' | 'createEvaluation' | 'verifyReport' | 'getJob';

interface Route {
  readonly operationId: OperationId;
  readonly method: 'GET' | 'POST';
  readonly pattern: RegExp;
}

const routes: readonly Route[] = [
  { operationId: 'health', method: 'GET', pattern: /^\/health$/ },
  { operationId: 'createEvaluation', method: 'POST', pattern: /^\/v0\/evaluations$/ },
  { operationId: 'verifyReport', method: 'POST', pattern: /^\/v0\/verifications$/ },
  { operationId: 'getJob', method: 'GET', pattern: /^\/v0\/jobs\/([^/]+)$/ },
];

export interface RouteMatch {
  readonly operationId: OperationId;
  /** Path parameters, still percent-encoded. */
  readonly params: Readonly<Record<string, string>>;
}

export function matchRoute(options: { method: string; path: string }): RouteMatch | EngineError {
  const method = options.method.toUpperCase();
  const candidates = routes.filter((route) => route.pattern.test(options.path));
  if (candidates.length === 0) {
    return { status: 404, code: 'route_not_found', message: `No operation of the contract has the path ${truncatePath(options.path)}.` };
  }
  const effective = method === 'HEAD' ? 'GET' : method;
  const route = candidates.find((candidate) => candidate.method === effective);
  if (!route) {
    const allow = [...new Set(candidates.flatMap((candidate) => (candidate.method === 'GET' ? ['GET', 'HEAD'] : [candidate.method])))];
    return {
      status: 405,
      code: 'method_not_allowed',
      message: `${truncatePath(options.path)} does not accept ${method}; it accepts ${allow.join(', ')}.`,
      headers: { allow: allow.join(', ') },
    };
  }
  const match = route.pattern.exec(options.path);
  return {
    operationId: route.operationId,
    params: route.operationId === 'getJob' && match?.[1] !== undefined ? { jobId: match[1] } : {},
  };
}

function truncatePath(path: string): string {
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

export function isEngineError(value: unknown): value is EngineError {
  return typeof value === 'object' && value !== null && 'code' in value && 'status' in value;
}
