/**
 * @module mocks/node
 * The mock engine in Node tests: MSW's setupServer with the engine's handlers, and `writePact`
 * to write the suite's pact to a file. The one module of mocks/ that runs in Node only, so the
 * one that may use Node's file system (test/architecture.test.ts).
 */
import { type SetupServer, setupServer } from 'msw/node';
import type { PactParties, PactV4 } from '../src/engine/index.js';
import { prepareOutputTarget, writeOutputFile } from '../src/files/output-file.js';
import { type CreateHandlersOptions, createHandlers, type MockHandlers } from './handlers.js';
import { type PactSource, pactFrom } from './pact.js';

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

/**
 * Writes the suite's pact (pactFrom) to `file`, folders made as needed, relative to the working
 * folder; returns the pact and the absolute path written.
 *
 * @example
 * afterAll(() => writePact(mock.control, { consumer: 'checkout-web', provider: 'evidence-service', file: 'pacts/checkout-web.json' }));
 */
export async function writePact(
  source: PactSource,
  options: Partial<PactParties> & { readonly file: string },
): Promise<{ pact: PactV4; path: string }> {
  const { file, ...parties } = options;
  if (typeof file !== 'string' || file === '')
    throw new TypeError("writePact: give the file to write, e.g. { file: 'pacts/consumer.json' }.");
  const pact = pactFrom(source, parties);
  // The start check every output passes: a symlink, FIFO, device or folder at `file`, or a
  // folder that takes no new file, is refused (OutputFileError), as the CLI's --pact-out refuses
  // it; the pact then goes to a temporary file renamed over `file`.
  await prepareOutputTarget({ path: file, label: 'writePact' });
  const path = await writeOutputFile({ path: file, data: `${JSON.stringify(pact, null, 2)}\n`, label: 'writePact' });
  return { pact, path };
}

export { CoverageError, type CoverageExpectation, type CoverageSource, expectCoverage } from './coverage.js';
export { type CreateHandlersOptions, createHandlers, type MockHandlers } from './handlers.js';
export { type PactSource, pactFrom } from './pact.js';
