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
   * Where the client sends its requests: an absolute URL such as 'http://localhost:4010/api',
   * or in a browser a path such as '/api' (resolved against the page). Default
   * 'http://localhost:4010', the mock server's own default, so one client configuration
   * works against both.
   */
  readonly baseUrl?: string;
  /** Serve an engine you created (its options win over the ones given here). */
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

const defaultBaseUrl = 'http://localhost:4010';

/** Splits a base URL into the prefix MSW matches on and the path prefix the engine strips. */
function parseBaseUrl(baseUrl: string): { prefix: string; origin: string; basePath: string } {
  const trimmed = baseUrl.replace(/\/+$/, '');
  if (trimmed.startsWith('/') || trimmed === '') {
    // A relative base (browser only): MSW resolves the pattern against the page's location.
    return { prefix: trimmed, origin: '', basePath: trimmed };
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new TypeError(`evidence-harness/msw: baseUrl must be an absolute URL or a path starting with '/', got '${baseUrl}'.`);
  }
  const basePath = url.pathname.replace(/\/+$/, '');
  return { prefix: `${url.origin}${basePath}`, origin: url.origin, basePath };
}

/**
 * Handlers that answer every request under `baseUrl` with the mock engine.
 *
 * @example
 * const { handlers, control } = createHandlers({ baseUrl: 'http://localhost:4010', scenario: 'slow-pass' });
 * const server = setupServer(...handlers);
 */
export function createHandlers(options: CreateHandlersOptions = {}): MockHandlers {
  const { baseUrl = defaultBaseUrl, engine: given, controlApi = true, ...engineOptions } = options;
  const { prefix, origin, basePath } = parseBaseUrl(baseUrl);
  const engine = given ?? createMockEngine({ ...engineOptions, ...(basePath ? { basePath } : {}) });
  const handlers: HttpHandler[] = [];
  if (controlApi) {
    handlers.push(http.all(`${origin}${controlPrefix}/*`, ({ request }) => handleControl(request, { engine })));
  }
  // The base URL itself and everything under it: the engine answers unknown paths with its
  // own 404 Error body, as the real service would.
  handlers.push(http.all(`${prefix}/*`, ({ request }) => engine.handle(request)));
  return { handlers, control: engine.control, engine };
}
