/**
 * @module contract/schemas
 * zod schemas for every object of the contract (section 2) and for the two request
 * parameters, built from the named limits. test/contract/drift.test.ts proves they accept
 * exactly what the components of spec/openapi.yaml accept.
 *
 * Those a test file's first createEvaluation does not need and no request of the bundled
 * contract's hot paths parses (Job, the verification pair, ErrorBody) are `z.lazy`, built at
 * their first use rather than at import, which every test file pays (docs/performance.md,
 * "Import cost"): `parse`, `safeParse` and `z.toJSONSchema` see no difference, and `.unwrap()`
 * gives the object schema (its `.shape`, `.extend`). The request schemas stay eager: getJob and
 * createEvaluation parse them on every call, where the lazy wrapper would be one step more.
 */
import * as z from 'zod';

// Each schema and the TypeScript type inferred from it share a name (value and type spaces).
import { digestPattern, evaluations, evidenceKinds, integrities, jobStatuses, limits, profiles } from './limits.js';
import { boundedText } from './text.js';
import { isUri } from './uri.js';

const digest = z.string().regex(digestPattern, { message: 'must be 64 lowercase hex characters' });

const uri = boundedText(limits.evidenceUriLength)
  .refine(isUri, { message: 'must be an absolute URI (RFC 3986)', params: { constraint: 'format' } })
  .meta({ format: 'uri' });

export const EvidenceReference = z.strictObject({
  id: boundedText(limits.evidenceIdLength),
  kind: z.enum(evidenceKinds),
  digest: digest.optional(),
  uri: uri.optional(),
  network: boundedText(limits.evidenceNetworkLength).optional(),
});
export type EvidenceReference = z.infer<typeof EvidenceReference>;

export const EvaluationRequest = z.strictObject({
  profile: z.enum(profiles),
  operationId: boundedText(limits.operationIdLength),
  instructionDigest: digest,
  policyDigest: digest,
  evidence: z.array(EvidenceReference).min(limits.evidenceItems.min).max(limits.evidenceItems.max),
});
export type EvaluationRequest = z.infer<typeof EvaluationRequest>;

export const Job = z.lazy(() =>
  z.strictObject({
    jobId: boundedText(limits.jobIdLength),
    status: z.enum(jobStatuses),
    evaluation: z.enum(evaluations).optional(),
    limitations: z.array(boundedText(limits.limitationLength)).max(limits.limitationsItems.max).optional(),
  }),
);
export type Job = z.infer<typeof Job>;
export type JobStatus = Job['status'];
export type Evaluation = NonNullable<Job['evaluation']>;

export const VerificationRequest = z.lazy(() =>
  z.strictObject({
    artifact: boundedText(limits.artifactLength),
    expectedOperationId: boundedText(limits.expectedOperationIdLength),
    expectedIssuer: boundedText(limits.expectedIssuerLength),
  }),
);
export type VerificationRequest = z.infer<typeof VerificationRequest>;

export const VerificationResult = z.lazy(() =>
  z.strictObject({
    integrity: z.enum(integrities),
    evaluation: z.enum(evaluations),
    reasons: z.array(boundedText(limits.reasonLength)).max(limits.reasonsItems.max),
  }),
);
export type VerificationResult = z.infer<typeof VerificationResult>;
export type Integrity = VerificationResult['integrity'];

export const ErrorBody = z.lazy(() =>
  z.strictObject({
    code: boundedText(limits.errorCodeLength),
    message: boundedText(limits.errorMessageLength),
  }),
);
/** The contract's `Error` object (named ErrorBody so it does not shadow the global Error). */
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The `Idempotency-Key` request header of createEvaluation. */
export const IdempotencyKey = boundedText(limits.idempotencyKeyLength);

/** The `jobId` path parameter of getJob. */
export const JobIdParameter = boundedText(limits.jobIdLength);

/** Every component schema, under its name in spec/openapi.yaml `components.schemas`. */
export const componentSchemas = {
  EvaluationRequest,
  EvidenceReference,
  Job,
  VerificationRequest,
  VerificationResult,
  Error: ErrorBody,
} as const;

export type ComponentName = keyof typeof componentSchemas;

/** The request parameters of the contract, keyed as `<operationId>.<in>.<name>`. */
export const parameterSchemas = {
  'createEvaluation.header.Idempotency-Key': IdempotencyKey,
  'getJob.path.jobId': JobIdParameter,
} as const;
