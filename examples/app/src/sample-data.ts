/**
 * @module app/sample-data
 * The requests the demo sends: one valid evaluation, and the inputs that provoke each error.
 */
import type { EvaluationRequest, VerificationRequest } from 'evidence-harness/client';
import { limits } from 'evidence-harness/contract';

/** A valid evaluation (the spec's own example). */
export const sampleEvaluation: EvaluationRequest = {
  profile: 'svc.payment-conformance/0.1-draft',
  operationId: 'op-2026-0001',
  instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
  policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
  evidence: [
    { id: 'ev-1', kind: 'issuer_assertion', uri: 'https://evidence.example/assertions/ev-1' },
    { id: 'ev-2', kind: 'rpc_observation', network: 'mainnet' },
  ],
};

/** Breaks one pattern: a 400. */
export const invalidEvaluation: EvaluationRequest = { ...sampleEvaluation, policyDigest: 'not-a-digest' };

/** One evidence item over the contract's maximum: a 413. */
export const oversizedEvaluation: EvaluationRequest = {
  ...sampleEvaluation,
  evidence: Array.from({ length: limits.evidenceItems.max + 1 }, (_, index) => ({
    id: `ev-${index + 1}`,
    kind: 'issuer_assertion' as const,
  })),
};

/** The same key with this body after sampleEvaluation: a 409. */
export const conflictingEvaluation: EvaluationRequest = { ...sampleEvaluation, operationId: 'op-2026-0002' };

/** What the verification checks the artifact against; the artifact is minted in the page. */
export const verificationExpectation: Omit<VerificationRequest, 'artifact'> = {
  expectedOperationId: sampleEvaluation.operationId,
  expectedIssuer: 'https://issuer.example',
};
