/**
 * The pact the mock writes from a client's traffic (control.pact(), GET /__mock/pact): V4,
 * HTTP interactions only, one per distinct behaviour, provider states and generators where a
 * verifier needs them, matching rules from the schema, and no credential.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PactV4 } from '../../src/engine/index.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { clientSecret, runClientFlow } from './client-flow.js';

let server: RunningMockServer;
let pact: PactV4;
let jobId: string;

beforeAll(async () => {
  server = await startMockServer({ port: 0, host: '127.0.0.1', engineOptions: { seed: 7 } });
  ({ jobId } = await runClientFlow({ baseUrl: server.url }));
  const response = await fetch(`${server.url}/__mock/pact?consumer=checkout-web&provider=evidence-service`);
  expect(response.status).toBe(200);
  pact = (await response.json()) as PactV4;
});
afterAll(() => server.close({ graceMs: 100 }));

it('writes a V4 pact of HTTP interactions, one per distinct behaviour', () => {
  expect(pact.metadata.pactSpecification.version).toBe('4.0');
  expect([pact.consumer.name, pact.provider.name]).toEqual(['checkout-web', 'evidence-service']);
  expect(new Set(pact.interactions.map((interaction) => interaction.type))).toEqual(new Set(['Synchronous/HTTP']));
  const descriptions = pact.interactions.map((interaction) => interaction.description);
  expect(new Set(descriptions).size).toBe(descriptions.length);
  // Many polls, one interaction per state they delivered.
  const states = pact.interactions.flatMap((interaction) => interaction.providerStates?.map((state) => state.name) ?? []);
  expect(states).toEqual(
    expect.arrayContaining([
      'no evaluation job was created with this Idempotency-Key',
      'an evaluation job was created with this Idempotency-Key',
      'the Idempotency-Key was used with another body',
      'a job in state RUNNING',
      'a job in state COMPLETE with evaluation PASS',
      'no job with this id',
    ]),
  );
  expect(pact.interactions.length).toBeLessThan(12);
});

it('keeps no credential, and no job id in a path without a generator', () => {
  const text = JSON.stringify(pact);
  expect(text).not.toContain(clientSecret.slice('Bearer '.length));
  expect(text.toLowerCase()).not.toContain('authorization');
  for (const interaction of pact.interactions) {
    if (interaction.request.path.includes(jobId)) expect(interaction.request.generators?.path?.expression).toMatch(/\$\{jobId\}$/);
  }
});

it('matches job ids and open values by rule, not by the value seen', () => {
  const created = pact.interactions.find((interaction) => interaction.providerStates?.[0]?.name.startsWith('no evaluation job'))!;
  expect(created.response.matchingRules?.body?.['$.jobId']).toEqual({ combine: 'AND', matchers: [{ match: 'type' }] });
  expect(created.response.matchingRules?.body?.['$.status']?.matchers[0]).toEqual({
    match: 'regex',
    regex: '^(QUEUED|RUNNING|COMPLETE|FAILED)$',
  });
  expect(created.request.matchingRules?.body?.['$.instructionDigest']?.matchers[0]).toEqual({ match: 'regex', regex: '^[0-9a-f]{64}$' });
  const running = pact.interactions.find((interaction) => interaction.providerStates?.[0]?.name === 'a job in state RUNNING')!;
  expect(running.providerStates?.[0]?.params).toEqual({ status: 'RUNNING' });
  expect(running.response.matchingRules?.body?.['$.status']).toBeUndefined();
  expect(running.request.generators?.path).toEqual({ type: 'ProviderState', expression: `/v0/jobs/\${jobId}`, dataType: 'STRING' });
});
