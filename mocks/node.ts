/**
 * @module mocks/node
 * The mock engine in Node tests: MSW's setupServer with the engine's handlers.
 */
import { type SetupServer, setupServer } from 'msw/node';
import { type CreateHandlersOptions, createHandlers, type MockHandlers } from './handlers.js';

export interface MockServiceNode extends MockHandlers {
  /** MSW's server: call listen() before the tests and close() after them. */
  readonly server: SetupServer;
}

/**
 * @example
 * const mock = setupMockService({ baseUrl: 'http://localhost:4010' });
 * beforeAll(() => mock.server.listen({ onUnhandledRequest: 'error' }));
 * afterEach(() => mock.control.reset());
 * afterAll(() => mock.server.close());
 * afterAll(() => expectCoverage(mock.control, { mustSee: ['createEvaluation 409', 'job FAILED'] }));
 */
export function setupMockService(options: CreateHandlersOptions = {}): MockServiceNode {
  const mock = createHandlers(options);
  return { ...mock, server: setupServer(...mock.handlers) };
}

export { CoverageError, type CoverageExpectation, type CoverageSource, expectCoverage } from './coverage.js';
export { type CreateHandlersOptions, createHandlers, type MockHandlers } from './handlers.js';
