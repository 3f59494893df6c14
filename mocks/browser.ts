/**
 * @module mocks/browser
 * The mock engine in the browser: MSW's setupWorker with the engine's handlers. The page must
 * serve MSW's service worker script (`npx msw init <public dir>`, see README).
 */
import { type SetupWorker, setupWorker } from 'msw/browser';
import './csp-safe-zod.js';
import { type CreateHandlersOptions, createHandlers, type MockHandlers } from './handlers.js';

export interface MockServiceBrowser extends MockHandlers {
  /** MSW's worker: `await worker.start()` before the app makes requests. */
  readonly worker: SetupWorker;
}

/**
 * @example
 * const mock = setupMockWorker({ baseUrl: '/api', scenario: 'slow-pass' });
 * await mock.worker.start({ onUnhandledRequest: 'bypass' });
 */
export function setupMockWorker(options: CreateHandlersOptions = {}): MockServiceBrowser {
  const mock = createHandlers(options);
  return { ...mock, worker: setupWorker(...mock.handlers) };
}

export { type CreateHandlersOptions, createHandlers, type MockHandlers } from './handlers.js';
export { type PactSource, pactFrom } from './pact.js';
