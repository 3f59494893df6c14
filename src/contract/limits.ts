/**
 * @module contract/limits
 * The limits of section 8 of the HTTP contract, as named constants. Every schema, generator
 * and check in the project reads its bounds from here; nothing restates a number.
 *
 * Lengths count Unicode code points, as JSON Schema's minLength/maxLength do
 * (docs/assumptions.md, "Lengths count code points").
 */

/** A closed range of lengths or item counts. */
export interface Bounds {
  readonly min: number;
  readonly max: number;
}

/** An upper bound only (the contract says "at most"). */
export interface UpperBound {
  readonly max: number;
}

export const limits = {
  idempotencyKeyLength: { min: 1, max: 128 },
  jobIdLength: { min: 1, max: 128 },
  operationIdLength: { min: 1, max: 128 },
  expectedOperationIdLength: { min: 1, max: 128 },
  expectedIssuerLength: { min: 1, max: 512 },
  evidenceItems: { min: 1, max: 64 },
  evidenceIdLength: { min: 1, max: 256 },
  evidenceUriLength: { max: 2048 },
  evidenceNetworkLength: { max: 128 },
  artifactLength: { max: 1_048_576 },
  limitationsItems: { max: 64 },
  limitationLength: { max: 2048 },
  reasonsItems: { max: 64 },
  reasonLength: { max: 2048 },
  errorCodeLength: { max: 80 },
  errorMessageLength: { max: 1024 },
} as const satisfies Record<string, Bounds | UpperBound>;

/**
 * Request body size limits in bytes. Not in the contract: each is the smallest power of two
 * above the largest schema-valid body in compact JSON with every character \u-escaped, so no
 * valid request is ever refused for its size (proven by test/contract/body-limits.test.ts).
 * createEvaluation answers 413 above it, verifyReport 400 (docs/assumptions.md A-13).
 */
export const bodyLimits = {
  createEvaluationBytes: 2 * 1024 * 1024,
  verifyReportBytes: 16 * 1024 * 1024,
  /**
   * The most a served document may set with `x-max-body-bytes` (docs/assumptions.md A-32): the
   * largest of the limits above. Past it, one request could make the mock hold gigabytes.
   */
  maxDocumentBodyBytes: 16 * 1024 * 1024,
} as const;

export const digestPattern = /^[0-9a-f]{64}$/;

export const profiles = ['svc.payment-conformance/0.1-draft', 'svc.dmt-derivation/0.1-draft'] as const;

export const evidenceKinds = [
  'issuer_assertion',
  'signed_observation',
  'rpc_observation',
  'inclusion_proof',
  'validated_state',
  'reproduced_calculation',
] as const;

export const jobStatuses = ['QUEUED', 'RUNNING', 'COMPLETE', 'FAILED'] as const;

export const evaluations = ['PASS', 'FAIL', 'INDETERMINATE'] as const;

export const integrities = ['VALID', 'INVALID', 'UNRESOLVED'] as const;
