/**
 * @module server
 * `evidence-harness/server`: the mock engine over node:http, for tests and scripts that want
 * a real port (the `evidence-harness mock` command runs the same server).
 */

export { ProfileFileError, readProfileFile } from '../profile/load.js';
export { type MockServerOptions, type RunningMockServer, startMockServer } from './mock-server.js';
export { openSharedState, type SharedState, type SharedStateOptions } from './redis/shared-state.js';
export { isScenarioPath, loadScenarioFile } from './scenario-file.js';
