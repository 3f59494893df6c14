/**
 * @module mocks/handlers
 * MSW request handlers over the mock engine. They hold no rules of their own: every answer,
 * errors and job lifecycles included, comes from `engine.handle(request)`, so a client sees
 * the same behaviour through MSW as through the `evidence-harness mock` server.
 */
import { type HttpHandler, http } from 'msw';
import {
  controlPrefix,
  createMockEngine,
  handleControl,
  type MockControl,
  type MockEngine,
  type MockEngineOptions,
} from '../src/engine/index.js';

export interface CreateHandlersOptions extends Omit<MockEngineOptions, 'basePath'> {
  /**
   * Where the client sends its requests: an absolute URL such as 'http://127.0.0.1:4010/api',
   * or in a browser a path such as '/api' (resolved against the page). Default
   * 'http://127.0.0.1:4010', the address `evidence-harness mock` listens on and prints, so
   * one client configuration works against both.
   */
  readonly baseUrl?: string;
  /** Serve an engine you created (its options win over the ones given here; the base path is stripped for it). */
  readonly engine?: MockEngine;
  /** Also serve the control API (spec/control-api.yaml) at the base URL's origin + /__mock. Default true. */
  readonly controlApi?: boolean;
}

export interface MockHandlers {
  /** Pass to setupServer(...handlers) or setupWorker(...handlers). */
  readonly handlers: HttpHandler[];
  /** Reset, scenarios, jobs, advance, journal: the engine's control surface. */
  readonly control: MockControl;
  readonly engine: MockEngine;
}

const defaultBaseUrl = 'http://127.0.0.1:4010';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Splits a base URL into the origin (a RegExp source) and the path prefix the engine strips.
 * Handlers match with regular expressions, not MSW path patterns: MSW decodes the text a path
 * pattern's wildcard matches, and a malformed escape such as /v0/jobs/%E0 would throw there
 * before the engine could answer its documented 404 (docs/assumptions.md A-23).
 */
function parseBaseUrl(baseUrl: string): { origin: string; basePath: string } {
  const trimmed = baseUrl.replace(/\/+$/, '');
  if (trimmed.startsWith('/') || trimmed === '') {
    // A relative base (browser): the page's own origin, or any origin where there is no page.
    const pageOrigin = (globalThis as { location?: { origin?: string } }).location?.origin;
    return { origin: pageOrigin ? escapeRegExp(pageOrigin) : '[a-z][a-z0-9+.-]*://[^/]+', basePath: trimmed };
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new TypeError(`evidence-harness/msw: baseUrl must be an absolute URL or a path starting with '/', got '${baseUrl}'.`);
  }
  return { origin: escapeRegExp(url.origin), basePath: url.pathname.replace(/\/+$/, '') };
}

/** The request with `basePath` removed from its URL, for an engine that was created without it. */
function withoutBasePath(request: Request, basePath: string): Request {
  const url = new URL(request.url);
  url.pathname = url.pathname.slice(basePath.length) || '/';
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  return new Request(url, {
    method: request.method,
    headers: request.headers,
    ...(hasBody ? { body: request.body, duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * Handlers that answer every request under `baseUrl` with the mock engine.
 *
 * @example
 * const { handlers, control } = createHandlers({ baseUrl: 'http://127.0.0.1:4010', scenario: 'slow-pass' });
 * const server = setupServer(...handlers);
 */
export function createHandlers(options: CreateHandlersOptions = {}): MockHandlers {
  const { baseUrl = defaultBaseUrl, engine: given, controlApi = true, ...engineOptions } = options;
  const { origin, basePath } = parseBaseUrl(baseUrl);
  const engine = given ?? createMockEngine({ ...engineOptions, ...(basePath ? { basePath } : {}) });
  // An engine of the caller's own knows nothing of the base path: strip it before answering.
  const answer = given && basePath ? (request: Request) => engine.handle(withoutBasePath(request, basePath)) : engine.handle;
  const handlers: HttpHandler[] = [];
  if (controlApi) {
    handlers.push(
      http.all(new RegExp(`^${origin}${escapeRegExp(controlPrefix)}(/|$)`), ({ request }) => handleControl(request, { engine })),
    );
  }
  // Everything under the base URL: the engine answers unknown paths with its own 404 Error
  // body, as the real service would.
  handlers.push(http.all(new RegExp(`^${origin}${escapeRegExp(basePath)}/`), ({ request }) => answer(request)));
  return { handlers, control: engine.control, engine };
}
