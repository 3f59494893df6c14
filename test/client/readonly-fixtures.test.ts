/**
 * Types that take real fixtures (issue 13): request bodies written `as const`, or typed with
 * readonly arrays, are accepted by the typed client and by EvaluationRequest; a wrong fixture is
 * still refused. The @ts-expect-error lines are checked by `npm run typecheck` (tsc over test/,
 * run by `npm test` before vitest): each fails the build if the error it expects goes away.
 * The same fixtures are then sent to the in-process mock, so they are also valid at run time.
 */
import { expect, it } from 'vitest';
import type { EvaluationRequest, EvidenceReference, VerificationRequest } from '../../src/client/index.js';
import { inProcessClient } from './in-process-client.js';

const fixture = {
  profile: 'svc.payment-conformance/0.1-draft',
  operationId: 'op-2026-0001',
  instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
  policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
  evidence: [
    { id: 'ev-1', kind: 'issuer_assertion' },
    { id: 'ev-2', kind: 'rpc_observation', network: 'mainnet' },
  ],
} as const;

const evidence: readonly EvidenceReference[] = fixture.evidence;
const typed: EvaluationRequest = fixture;

it('sends an `as const` fixture as a createEvaluation body', async () => {
  const { client } = inProcessClient();
  const created = await client.POST('/v0/evaluations', { params: { header: { 'Idempotency-Key': 'as-const' } }, body: fixture });
  expect(created.response.status).toBe(202);
  const again = await client.POST('/v0/evaluations', {
    params: { header: { 'Idempotency-Key': 'readonly-array' } },
    body: { ...typed, evidence },
  });
  expect(again.response.status).toBe(202);
});

it('sends an `as const` verification request', async () => {
  const { client } = inProcessClient();
  const request = { artifact: 'not.a.jws', expectedOperationId: 'op-2026-0001', expectedIssuer: 'https://issuer.example' } as const;
  const checked: VerificationRequest = request;
  const answer = await client.POST('/v0/verifications', { body: checked });
  expect(answer.response.status).toBe(200);
});

it('still refuses wrong fixtures at compile time (checked by tsc, not by this run)', () => {
  const wrongKind = { ...fixture, evidence: [{ id: 'ev-1', kind: 'not_a_kind' }] } as const;
  // @ts-expect-error: 'not_a_kind' is not an evidence kind
  const a: EvaluationRequest = wrongKind;
  const missing = { profile: fixture.profile, operationId: fixture.operationId, evidence: fixture.evidence } as const;
  // @ts-expect-error: instructionDigest and policyDigest are required
  const b: EvaluationRequest = missing;
  const wrongItems = { ...fixture, evidence: ['ev-1'] } as const;
  // @ts-expect-error: evidence holds references, not strings
  const c: EvaluationRequest = wrongItems;
  const { client } = inProcessClient();
  // @ts-expect-error: the client's body type refuses the same wrong fixture
  void client.POST('/v0/evaluations', { params: { header: { 'Idempotency-Key': 'k' } }, body: wrongKind });
  expect([a, b, c].length).toBe(3);
});
