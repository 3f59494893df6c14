/**
 * `mock --store`: a URL that is no Redis URL is a usage error (exit 2), a Redis that cannot be
 * reached stops the start-up with its reason (exit 1), and a password in the URL is never
 * repeated in either message.
 */
import { expect, it } from 'vitest';
import { freePort } from '../../bench/free-port.js';
import { runMain } from '../support/run-main.js';
import { inTime } from '../support/time-limits.js';

it('refuses a store URL that is not redis:// or rediss://, without repeating its password', async () => {
  const { code, stderr } = await runMain('mock', '--port', '0', '--store', 'https://admin:hunter2@cache.internal:6379');
  expect(code).toBe(2);
  expect(stderr).toContain('--store takes a Redis URL such as redis://127.0.0.1:6379');
  expect(stderr).toContain('https://admin:***@cache.internal:6379');
  expect(stderr).not.toContain('hunter2');
});

it('refuses --store-namespace without --store, and a namespace that would break the key layout', async () => {
  expect((await runMain('mock', '--port', '0', '--store-namespace', 'team')).stderr).toContain('give --store redis://HOST:PORT as well');
  const bad = await runMain('mock', '--port', '0', '--store', 'redis://127.0.0.1:1', '--store-namespace', 'a}b');
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--store-namespace: a store namespace is 1 to 64 letters, digits, '.', '_' or '-'");
});

it('stops with the reason when Redis cannot be reached, naming the URL without its password', async () => {
  const port = await freePort();
  const started = performance.now();
  const { code, stderr } = await runMain('mock', '--port', '0', '--store', `redis://:s3cret-pass@127.0.0.1:${port}`);
  expect(code).toBe(1);
  expect(stderr).toContain(`The shared store at redis://:***@127.0.0.1:${port} cannot be reached`);
  expect(stderr).toMatch(/ECONNREFUSED|refused/);
  expect(stderr).not.toContain('s3cret-pass');
  // The 1 s connection deadline: it gives up by itself rather than retrying for ever.
  expect(performance.now() - started).toBeLessThan(inTime(1000));
});

it('says what is wrong with a malformed store URL, and that byte budgets have no effect with a store', async () => {
  const badPort = await runMain('mock', '--port', '0', '--store', 'redis://127.0.0.1:99999');
  expect(badPort.code).toBe(2);
  expect(badPort.stderr).toContain('is not a well-formed URL');
  const badPath = await runMain('mock', '--port', '0', '--store', 'redis://127.0.0.1:6379/abc');
  expect(badPath.stderr).toContain('must be a database number, such as /0');
  const port = await freePort();
  const bytes = await runMain('mock', '--port', '0', '--store', `redis://127.0.0.1:${port}`, '--max-job-bytes', '64MiB');
  expect(bytes.stderr).toContain('--max-job-bytes bound memory in this process and have no effect with --store');
});
