/**
 * @module mocks
 * `evidence-harness/msw`: MSW handlers over the mock engine, for setupServer (Node) and
 * setupWorker (browser). `evidence-harness/msw/node` and `evidence-harness/msw/browser` add
 * the ready-made server and worker.
 */

export { CoverageError, type CoverageExpectation, type CoverageSource, expectCoverage } from './coverage.js';
export { type CreateHandlersOptions, createHandlers, type MockHandlers } from './handlers.js';
export { type PactSource, pactFrom } from './pact.js';
