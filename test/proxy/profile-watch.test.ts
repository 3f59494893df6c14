/**
 * A profile's watchers never cost the client its answer: a watcher that fails lets the
 * exchange through unwatched, and the log says so, scrubbed.
 */
import { afterEach, expect, it } from 'vitest';
import type { ProfileWatcher } from '../../src/proxy/profile-watch.js';
import { type RunningProxy, startProxyServer } from '../../src/proxy/proxy-server.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';

let upstream: RunningMockServer | undefined;
let proxy: RunningProxy | undefined;

afterEach(async () => {
  await proxy?.close({ graceMs: 100 });
  await upstream?.close({ graceMs: 100 });
  proxy = undefined;
  upstream = undefined;
});

it('passes the upstream answer on when a watcher throws, and logs the exchange as unwatched', async () => {
  upstream = await startMockServer({ port: 0, host: '127.0.0.1' });
  const lines: string[] = [];
  const seen: string[] = [];
  const failing: ProfileWatcher = {
    see: () => {
      throw new Error('watcher broke on Bearer s3cret-token');
    },
  };
  const counting: ProfileWatcher = {
    see: (watched) => {
      seen.push(watched.exchange.intent.kind);
      return [];
    },
  };
  proxy = await startProxyServer({
    upstream: upstream.url,
    port: 0,
    host: '127.0.0.1',
    profileWatchers: [counting, failing],
    log: (line) => lines.push(line),
  });
  const response = await fetch(`${proxy.url}/v0/jobs/job-none`, { headers: { authorization: 'Bearer s3cret-token' } });
  expect(response.status).toBe(404);
  expect(((await response.json()) as { code: string }).code).toBe('job_not_found');
  expect(response.headers.get('profile-drift')).toBeNull();
  expect(seen).toEqual(['unknown-job']);
  expect(lines.some((line) => /profile watch skipped exchange 1: watcher broke/.test(line))).toBe(true);
  expect(lines.join('\n')).not.toContain('s3cret-token');
});
