/**
 * @module conformance/hooks
 * `--hooks FILE.mjs` (after Schemathesis's hooks and Dredd's hook files): a module exporting any
 * of `beforeRequest(request)` (e.g. refresh a token; it may change the headers and the body),
 * `afterResponse(exchange)` (see every exchange, read-only), and `checks`, extra checks with the
 * built-in signature `judge(exchange, context) → verdict`, selected and reported like built-ins.
 */
import { pathToFileURL } from 'node:url';
import { allProbes, type Check, type Judge } from './checks/check.js';
import { checks as builtIn } from './checks/registry.js';
import type { Exchange } from './exchange.js';

/** What beforeRequest gets: a copy it may change (headers and body are sent as it leaves them). */
export interface HookRequest {
  readonly method: string;
  readonly url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface ConformanceHooks {
  /** Changes `request` in place, or returns the request to send instead. */
  readonly beforeRequest?: (request: HookRequest) => HookRequest | undefined | Promise<HookRequest | undefined>;
  readonly afterResponse?: (exchange: Exchange) => void | Promise<void>;
  readonly checks?: readonly Check[];
}

/** A hooks module that cannot be used, or a hook that threw; the CLI exits 2 with its message. */
export class HookError extends Error {
  override readonly name = 'HookError';
}

/** A hook's own check as written in a module: name, description, judge; severity defaults to advisory. */
function hookCheck(value: unknown, file: string): Check {
  const candidate = value as { name?: unknown; description?: unknown; severity?: unknown; judge?: unknown } | null;
  const name = candidate?.name;
  if (typeof name !== 'string' || !/^[a-z][a-z0-9_]{0,63}$/.test(name))
    throw new HookError(
      `${file}: each of checks needs a name of lower-case letters, digits and _ (got ${JSON.stringify(name)?.slice(0, 80)})`,
    );
  if (builtIn.some((check) => check.name === name)) throw new HookError(`${file}: the check ${name} is built in; give yours another name`);
  if (typeof candidate?.judge !== 'function') throw new HookError(`${file}: the check ${name} has no judge(exchange, context) function`);
  const severity = candidate.severity === 'required' ? 'required' : 'advisory';
  return {
    name,
    description: typeof candidate.description === 'string' ? candidate.description : `${name} (from --hooks)`,
    severity,
    // A hook's check may judge any exchange: selected alone, it still gets every request sent.
    probes: allProbes,
    judge: candidate.judge as Judge,
  };
}

/** Imports a hooks module and checks what it exports. */
export async function loadHooks(file: string): Promise<ConformanceHooks> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new HookError(`${file}: cannot be imported (${(error as Error).message.split('\n')[0]})`);
  }
  const { beforeRequest, afterResponse, checks } = module;
  for (const [name, value] of Object.entries({ beforeRequest, afterResponse }))
    if (value !== undefined && typeof value !== 'function') throw new HookError(`${file}: ${name} must be a function`);
  if (checks !== undefined && !Array.isArray(checks)) throw new HookError(`${file}: checks must be an array of checks`);
  const own = ((checks as unknown[] | undefined) ?? []).map((value) => hookCheck(value, file));
  if (new Set(own.map((check) => check.name)).size !== own.length) throw new HookError(`${file}: two checks have the same name`);
  if (beforeRequest === undefined && afterResponse === undefined && own.length === 0)
    throw new HookError(`${file}: exports none of beforeRequest, afterResponse and checks`);
  return {
    ...(beforeRequest ? { beforeRequest: beforeRequest as ConformanceHooks['beforeRequest'] } : {}),
    ...(afterResponse ? { afterResponse: afterResponse as ConformanceHooks['afterResponse'] } : {}),
    ...(own.length > 0 ? { checks: own } : {}),
  };
}
