/**
 * The shared behaviour suite against the node:http mock server on a random loopback port.
 */

import { behaviourSuite } from '../engine/behaviour.suite.js';
import { httpTarget } from '../support/http-target.js';

behaviourSuite(httpTarget);
