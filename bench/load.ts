/**
 * @module bench/load
 * The requests every server gets (health; createEvaluation with a new Idempotency-Key each, so
 * each stores a job; getJob of a job that exists; verifyReport of an honestly signed artifact)
 * and one autocannon run of them, with the counts that say whether its figure can be trusted.
 */
import autocannon, { type AutocannonRequest } from 'autocannon';
import { mintArtifact, testKeySet } from '../src/engine/index.js';

export type WorkloadName = 'health' | 'createEvaluation' | 'getJob' | 'verifyReport';
export const workloadNames: readonly WorkloadName[] = ['health', 'getJob', 'createEvaluation', 'verifyReport'];

export interface Workload {
  readonly name: WorkloadName;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly freshIdempotencyKey: boolean;
}

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
/** An Idempotency-Key never used before in this run. */
export function freshKey(): string {
  keyCounter += 1;
  return `${keyPrefix}-${keyCounter}`;
}

/** A verification request for an artifact the mock verifies as VALID/PASS. */
export async function verificationBody(): Promise<string> {
  const issuer = 'https://issuer.example';
  const artifact = await mintArtifact({ issuer, operationId: 'op-2026-0001', evaluation: 'PASS', keys: testKeySet });
  return JSON.stringify({ artifact, expectedOperationId: 'op-2026-0001', expectedIssuer: issuer });
}

/**
 * Creates a job on the server and returns its id; a server that gives none (bare) gets a
 * well-formed id it answers anyway. Called just before each getJob run: a createEvaluation run
 * stores enough jobs to evict one made earlier, and getJob would then measure 404s.
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

/** The workload `name` against the server at `baseUrl`, made fresh (see existingJobId). */
export async function workload(name: WorkloadName, baseUrl: string): Promise<Workload> {
  switch (name) {
    case 'health':
      return { name, method: 'GET', path: '/health', headers: {}, freshIdempotencyKey: false };
    case 'getJob':
      return {
        name,
        method: 'GET',
        path: `/v0/jobs/${encodeURIComponent(await existingJobId(baseUrl))}`,
        headers: {},
        freshIdempotencyKey: false,
      };
    case 'createEvaluation':
      return { name, method: 'POST', path: '/v0/evaluations', headers: json, body: evaluationBody, freshIdempotencyKey: true };
    case 'verifyReport':
      return { name, method: 'POST', path: '/v0/verifications', headers: json, body: await verificationBody(), freshIdempotencyKey: false };
  }
}

export interface LoadResult {
  /** Requests per second over the whole run. */
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly total: number;
  readonly non2xx: number;
  /** Transport errors and timeouts. */
  readonly errors: number;
  readonly statuses: Readonly<Record<string, number>>;
}

export function requestOf(workload: Workload): AutocannonRequest {
  const request: AutocannonRequest = {
    method: workload.method,
    path: workload.path,
    headers: { ...workload.headers },
    ...(workload.body === undefined ? {} : { body: workload.body }),
  };
  if (!workload.freshIdempotencyKey) return request;
  // A new object per request: autocannon rebuilds the request from what this returns.
  return { ...request, setupRequest: (next) => ({ ...next, headers: { ...next.headers, 'idempotency-key': freshKey() } }) };
}

export async function runLoad(options: {
  baseUrl: string;
  requests: readonly AutocannonRequest[];
  connections: number;
  durationS: number;
  /** Stop after this many requests instead (autocannon rounds durations up to whole seconds). */
  amount?: number | undefined;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: options.baseUrl,
    connections: options.connections,
    ...(options.amount === undefined ? { duration: options.durationS } : { amount: options.amount }),
    pipelining: 1,
    timeout: 10,
    requests: [...options.requests],
  });
  return {
    rps: result.duration > 0 ? result.requests.total / result.duration : 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, stats]) => [status, stats.count])),
  };
}

/** A run's server CPU per answered request in µs, between two /proc readings. */
export function cpuPerRequestUs(beforeMs: number | undefined, afterMs: number | undefined, requests: number): number | undefined {
  return beforeMs === undefined || afterMs === undefined || requests === 0 ? undefined : ((afterMs - beforeMs) * 1000) / requests;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
