/**
 * What the proxy remembers of the traffic is bounded: past its capacity the oldest keys and jobs
 * are forgotten first (a tenth at a time), the newest still recognised.
 */
import { expect, it } from 'vitest';
import { TrafficState } from '../../src/proxy/traffic-state.js';

it('forgets the oldest keys past its bound and still recognises the newest', () => {
  const state = new TrafficState(10);
  const body = { operationId: 'op-1' };
  const create = (key: string) => {
    const { intent, digest } = state.createIntent({ caller: 'anonymous', key, body });
    state.createAnswered({ caller: 'anonymous', key, digest, intent, status: 202, job: { jobId: `job-${key}`, status: 'QUEUED' } });
    return intent;
  };
  for (let index = 0; index < 100; index += 1) create(`k-${index}`);
  expect(state.createIntent({ caller: 'anonymous', key: 'k-0', body }).intent.kind).toBe('create');
  expect(state.createIntent({ caller: 'anonymous', key: 'k-99', body }).intent).toEqual({ kind: 'replay', jobId: 'job-k-99' });
  expect(state.readIntent({ caller: 'anonymous', jobId: 'job-k-0' }).kind).toBe('positive');
  expect(state.readIntent({ caller: 'anonymous', jobId: 'job-k-99' }).kind).toBe('poll');
  // Never more than the bound: of the 100 keys, at most the last 10 are known.
  const known = Array.from(
    { length: 100 },
    (_, index) => state.createIntent({ caller: 'anonymous', key: `k-${index}`, body }).intent.kind,
  ).filter((kind) => kind === 'replay');
  expect(known.length).toBeGreaterThan(0);
  expect(known.length).toBeLessThanOrEqual(10);
});
