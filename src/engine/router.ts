/**
 * @module engine/router
 * Stage 1 of the pipeline: maps a method and path to an operation of the contract, or to the
 * 404/405 the contract leaves to `default` (docs/assumptions.md A-20).
 */
import type { BehaviourOperationId, ContractRoute } from './engine-contract.js';
import type { EngineError } from './responses.js';

/** An operation the engine has behaviour for (engine-contract.ts); others are served from examples. */
export type OperationId = BehaviourOperationId;

export interface RouteMatch {
  /** The document's operationId: one of OperationId, or an operation served from its examples. */
  readonly operationId: string;
  /** Path parameters, still percent-encoded. */
  readonly params: Readonly<Record<string, string>>;
}

/** The contract's paths as written there, matched as the proxy and the runner match them. */
export function matchRoute(options: {
  method: string;
  path: string;
  routes: readonly ContractRoute[];
  /** What the Allow list adds to the declared methods (A-20.allow): HEAD beside GET by default. */
  allowAdds?: readonly ('HEAD' | 'OPTIONS')[];
}): RouteMatch | EngineError {
  const method = options.method.toUpperCase();
  const candidates = options.routes.filter((route) => route.path.test(options.path));
  if (candidates.length === 0) {
    return {
      status: 404,
      code: 'route_not_found',
      situation: 'A-20.unknown-route',
      message: `No operation of the contract has the path ${truncatePath(options.path)}.`,
      ...(emptyParameter(options.path, options.routes) ? { condition: 'empty-path-parameter' } : {}),
    };
  }
  const effective = method === 'HEAD' ? 'GET' : method;
  const route = candidates.find((candidate) => candidate.method === effective);
  if (!route) {
    const allow = allowList(
      candidates.map((candidate) => candidate.method),
      options.allowAdds ?? ['HEAD'],
    );
    return {
      status: 405,
      code: 'method_not_allowed',
      situation: 'A-20.undeclared-method',
      message: `${truncatePath(options.path)} does not accept ${method}; it accepts ${allow.join(', ')}.`,
      headers: { allow: allow.join(', ') },
    };
  }
  return { operationId: route.operationId, params: route.path.match(options.path) ?? {} };
}

/** A path's Allow list: its declared methods, HEAD beside GET and OPTIONS at the end as `adds` says. */
export function allowList(declared: readonly string[], adds: readonly string[]): string[] {
  const listed = declared.flatMap((method) => (method === 'GET' && adds.includes('HEAD') ? ['GET', 'HEAD'] : [method]));
  return [...new Set([...listed, ...(adds.includes('OPTIONS') ? ['OPTIONS'] : [])])];
}

/** The methods the contract declares on a path (none: the path is outside it). */
export function declaredMethodsAt(path: string, routes: readonly ContractRoute[]): string[] {
  return routes.filter((route) => route.path.test(path)).map((route) => route.method);
}

/**
 * Whether `path` is an operation's path with a parameter left empty (GET /v0/jobs/): filled
 * with a character no literal of a template holds, it fits a template, inside a parameter.
 * A profile may answer it apart from a path outside the contract (A-52, entry-parts.ts).
 */
function emptyParameter(path: string, routes: readonly ContractRoute[]): boolean {
  if (!/\/\/|\/$/.test(path)) return false;
  const filled = path.replace(/\/(?=\/|$)/g, '/\u0000');
  return routes.some((route) => Object.values(route.path.match(filled) ?? {}).some((value) => value.includes('\u0000')));
}

function truncatePath(path: string): string {
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

export function isEngineError(value: unknown): value is EngineError {
  return typeof value === 'object' && value !== null && 'code' in value && 'status' in value;
}
