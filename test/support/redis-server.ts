/**
 * The tests' redis-server: the benchmarks' starter (bench/redis-server.ts), and in CI, where
 * .ci/run installs it, a missing server is a failure rather than a reason to skip.
 */
import { redisAvailable } from '../../bench/redis-server.js';

export { redisAvailable, startTestRedis, type TestRedis } from '../../bench/redis-server.js';

if (!redisAvailable && process.env.CI) throw new Error('redis-server is not installed; .ci/run installs it (apt-get install redis-server)');
