/**
 * @module bench/workloads
 * The four requests of the throughput benchmark, the same for every server: health,
 * createEvaluation with a new Idempotency-Key per request (so every request creates a job,
 * never a replay), getJob of a job that exists, and verifyReport of an honestly signed artifact.
 */
import { mintArtifact, testKeySet } from '../src/engine/index.js';

export type WorkloadName = 'health' | 'createEvaluation' | 'getJob' | 'verifyReport';
export const workloadNames: readonly WorkloadName[] = ['health', 'createEvaluation', 'getJob', 'verifyReport'];

export interface Workload {
  readonly name: WorkloadName;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Give every request its own Idempotency-Key header. */
  readonly freshIdempotencyKey: boolean;
}

/** A valid EvaluationRequest (the contract's example shape). */
export const evaluationBody = JSON.stringify({
  profile: 'svc.payment-conformance/0.1-draft',
  operationId: 'op-2026-0001',
  instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
  policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
  evidence: [
    { id: 'ev-1', kind: 'issuer_assertion', uri: 'https://evidence.example/assertions/ev-1' },
    { id: 'ev-2', kind: 'rpc_observation', network: 'mainnet' },
  ],
});

const json = { 'content-type': 'application/json' } as const;

let keyCounter = 0;
const keyPrefix = `bench-${process.pid}-${Date.now().toString(36)}`;
/** An Idempotency-Key never used before in this bench run. */
export function freshKey(): string {
  keyCounter += 1;
  return `${keyPrefix}-${keyCounter}`;
}

/** A signed artifact the mock verifies as VALID/PASS. */
async function verificationBody(): Promise<string> {
  const issuer = 'https://issuer.example';
  const artifact = await mintArtifact({ issuer, operationId: 'op-2026-0001', evaluation: 'PASS', keys: testKeySet });
  return JSON.stringify({ artifact, expectedOperationId: 'op-2026-0001', expectedIssuer: issuer });
}

/**
 * Creates one job on the server at `baseUrl` and returns its jobId; a server that does not
 * answer with one (the bare ceiling) gets a well-formed id it can answer anyway.
 */
export async function existingJobId(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/v0/evaluations`, {
    method: 'POST',
    headers: { ...json, 'idempotency-key': freshKey() },
    body: evaluationBody,
  });
  const answer = (await response.json().catch(() => ({}))) as { jobId?: unknown };
  return typeof answer.jobId === 'string' ? answer.jobId : 'job_0000000000000000000000BENCH';
}

/** getJob of the job `jobId`. */
export function getJobWorkload(jobId: string): Workload {
  return { name: 'getJob', method: 'GET', path: `/v0/jobs/${encodeURIComponent(jobId)}`, headers: {}, freshIdempotencyKey: false };
}

/** The workloads against the server at `baseUrl` (creating the job getJob reads). */
export async function prepareWorkloads(baseUrl: string): Promise<Record<WorkloadName, Workload>> {
  const jobId = await existingJobId(baseUrl);
  return {
    health: { name: 'health', method: 'GET', path: '/health', headers: {}, freshIdempotencyKey: false },
    createEvaluation: {
      name: 'createEvaluation',
      method: 'POST',
      path: '/v0/evaluations',
      headers: json,
      body: evaluationBody,
      freshIdempotencyKey: true,
    },
    getJob: getJobWorkload(jobId),
    verifyReport: {
      name: 'verifyReport',
      method: 'POST',
      path: '/v0/verifications',
      headers: json,
      body: await verificationBody(),
      freshIdempotencyKey: false,
    },
  };
}
