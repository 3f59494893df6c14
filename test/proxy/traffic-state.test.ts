/**
 * What the proxy remembers of the traffic is bounded: past its capacity the oldest keys and jobs
 * are forgotten first (a tenth at a time), the newest still recognised. A remembered body is
 * digested lazily, with the same verdicts as digesting it at once.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { canonicalJson } from '../../src/engine/canonical-json.js';
import { maxKeptText, TrafficState } from '../../src/proxy/traffic-state.js';

it('forgets the oldest keys past its bound and still recognises the newest', () => {
  const state = new TrafficState(10);
  const body = { operationId: 'op-1' };
  const create = (key: string) => {
    const { intent, body: remembered } = state.createIntent({ caller: 'anonymous', key, body });
    state.createAnswered({
      caller: 'anonymous',
      key,
      body: remembered,
      intent,
      status: 202,
      job: { jobId: `job-${key}`, status: 'QUEUED' },
    });
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

/**
 * A short body's digest is taken only when its key comes again; this replays random create
 * traffic through the state and through a model that digests every body at once (as the proxy
 * did before), and expects the same intent for every request: replays of equal bodies written
 * differently, conflicts, long bodies digested at once, other callers, refused creates.
 */
it('judges a replay or a conflict as eager digests would, short bodies and long', () => {
  const long = 'x'.repeat(maxKeptText);
  const bodies = [
    { text: '{"a":1,"b":[1,2]}' },
    { text: '{ "b": [1, 2], "a": 1 }' },
    { text: '{"a":1,"b":[2,1]}' },
    { text: `{"a":1,"pad":"${long}"}` },
    { text: `{"pad":"${long}","a":1}` },
    { text: `{"a":2,"pad":"${long}"}` },
    { text: '{"a":"é"}' },
    { text: '{"a":"\\u00e9"}' },
  ];
  const request = fc.record({
    caller: fc.constantFrom('anonymous', 'caller-b'),
    key: fc.constantFrom('k1', 'k2', 'k3'),
    body: fc.constantFrom(...bodies),
    withText: fc.boolean(),
    status: fc.constantFrom(202, 202, 400),
  });
  fc.assert(
    fc.property(fc.array(request, { maxLength: 40 }), (requests) => {
      const state = new TrafficState(1000);
      const model = new Map<string, { digest: string; jobId: string }>();
      requests.forEach((each, index) => {
        const json: unknown = JSON.parse(each.body.text);
        const digest = createHash('sha256').update(canonicalJson(json)).digest('hex');
        const earlier = model.get(`${each.caller}\n${each.key}`);
        const expected = earlier
          ? earlier.digest === digest
            ? { kind: 'replay', jobId: earlier.jobId }
            : { kind: 'conflict', jobId: earlier.jobId }
          : { kind: 'create', purpose: 'observed' };
        const { intent, body } = state.createIntent({
          caller: each.caller,
          key: each.key,
          body: json,
          ...(each.withText ? { text: each.body.text } : {}),
        });
        expect(intent).toEqual(expected);
        const job = { jobId: `job-${index}`, status: 'QUEUED' };
        state.createAnswered({ caller: each.caller, key: each.key, body, intent, status: each.status, job });
        if (!earlier && each.status === 202) model.set(`${each.caller}\n${each.key}`, { digest, jobId: job.jobId });
      });
    }),
    { seed: 14, numRuns: 300 },
  );
});
