/**
 * The shared behaviour suite against the engine in-process.
 */
import { inProcessTarget } from '../support/in-process-target.js';
import { behaviourSuite } from './behaviour.suite.js';

behaviourSuite(inProcessTarget);
