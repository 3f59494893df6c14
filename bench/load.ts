/**
 * @module bench/load
 * One autocannon run (programmatic API) of one workload: requests per second and latency
 * percentiles, with the counts that show whether the figure can be trusted (non-2xx answers,
 * transport errors, timeouts).
 */
import autocannon, { type AutocannonRequest } from 'autocannon';
import { freshKey, type Workload } from './workloads.js';

export interface LoadResult {
  /** Requests per second over the whole measured run. */
  readonly rps: number;
  /** Standard deviation of the 1-s samples: the run's own noise. */
  readonly rpsStddev: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly total: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  /** Answers counted by status code. */
  readonly statuses: Readonly<Record<string, number>>;
}

export interface LoadOptions {
  readonly baseUrl: string;
  readonly workload: Workload;
  /** A sequence of requests each connection sends in turn, instead of `workload`'s one request. */
  readonly requests?: readonly AutocannonRequest[];
  readonly connections: number;
  readonly durationS: number;
  /** Stop after this many requests instead of after `durationS` (smoke runs: autocannon rounds durations up to whole seconds). */
  readonly amount?: number;
}

function requestOf(workload: Workload): AutocannonRequest {
  const request: AutocannonRequest = {
    method: workload.method,
    path: workload.path,
    headers: { ...workload.headers },
    ...(workload.body === undefined ? {} : { body: workload.body }),
  };
  if (!workload.freshIdempotencyKey) return request;
  return {
    ...request,
    // A new object per request: autocannon rebuilds the request from what this returns.
    setupRequest: (next) => ({ ...next, headers: { ...next.headers, 'idempotency-key': freshKey() } }),
  };
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.baseUrl,
    connections: options.connections,
    ...(options.amount === undefined ? { duration: options.durationS } : { amount: options.amount }),
    pipelining: 1,
    timeout: 10,
    requests: options.requests ? [...options.requests] : [requestOf(options.workload)],
  });
  return {
    // Total over elapsed time: exact even for runs shorter than autocannon's 1-s sampling.
    rps: result.duration > 0 ? result.requests.total / result.duration : 0,
    rpsStddev: result.requests.stddev,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, stats]) => [status, stats.count])),
  };
}
