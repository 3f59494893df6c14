/**
 * The shared behaviour suite against the MSW handlers under setupServer.
 */
import { afterAll } from 'vitest';
import { behaviourSuite } from '../engine/behaviour.suite.js';
import { closeMswTarget, mswTarget } from '../support/msw-target.js';

afterAll(closeMswTarget);
behaviourSuite(mswTarget);
