/**
 * The fault zoo: servers that each break exactly one rule of the contract or of
 * docs/assumptions.md, and the check that must catch it. Most ask a mock engine and then
 * change one thing in its answer, so everything else they do is right.
 */
import type { MockEngine } from '../../../src/engine/index.js';
import type { FaultHandler } from './fault-server.js';

export interface Fault {
  /** Kebab-case name, also the test's name. */
  readonly name: string;
  /** The one rule the server breaks. */
  readonly rule: string;
  /** The one check that must fail. */
  readonly check: string;
  /** Runner options this fault needs (e.g. a short --timeout for a server that never answers). */
  readonly options?: { readonly timeoutMs?: number; readonly jobTimeoutMs?: number };
  /** A fresh handler (faults that count reads keep their state in it). */
  create(): FaultHandler;
}

type Operation = 'health' | 'createEvaluation' | 'getJob' | 'verifyReport';

function routeOf(request: Request): { operation?: Operation; jobId?: string } {
  const { pathname } = new URL(request.url);
  if (request.method === 'GET' && pathname === '/health') return { operation: 'health' };
  if (request.method === 'POST' && pathname === '/v0/evaluations') return { operation: 'createEvaluation' };
  if (request.method === 'POST' && pathname === '/v0/verifications') return { operation: 'verifyReport' };
  const job = /^\/v0\/jobs\/([^/]+)$/.exec(pathname);
  if (request.method === 'GET' && job) {
    let jobId: string;
    try {
      jobId = decodeURIComponent(job[1]!);
    } catch {
      jobId = job[1]!;
    }
    return { operation: 'getJob', jobId };
  }
  return {};
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

async function bodyOf(response: Request | Response): Promise<any> {
  const text = await response.clone().text();
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Rewrites the JSON body of an answer; other headers are kept. */
async function rewrite(response: Response, change: (body: any) => unknown, status = response.status): Promise<Response> {
  const body = await bodyOf(response);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(change(body)), { status, headers });
}

/** A handler that changes the engine's answer when `when` holds. */
function onAnswer(
  when: (options: { route: ReturnType<typeof routeOf>; response: Response; body: any }) => boolean,
  change: (response: Response) => Promise<Response>,
) {
  return (): FaultHandler => async (request, engine) => {
    const route = routeOf(request);
    const response = await engine.handle(request);
    return when({ route, response, body: await bodyOf(response) }) ? change(response) : response;
  };
}

/** Sends a changed request to the engine. */
async function withBody(request: Request, change: (body: any) => unknown): Promise<Request> {
  const text = await request.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Request(request, { body: text });
  }
  return new Request(request.url, { method: request.method, headers: request.headers, body: JSON.stringify(change(body)) });
}

/** Counts reads per jobId, for faults that act on the n-th read. */
function readCounter() {
  const reads = new Map<string, number>();
  return (jobId: string) => {
    const count = (reads.get(jobId) ?? 0) + 1;
    reads.set(jobId, count);
    return count;
  };
}

const isJob = (body: any) => body && typeof body.jobId === 'string' && typeof body.status === 'string';

export const faults: readonly Fault[] = [
  {
    name: 'job-status-done',
    rule: 'a new Job says status "DONE", outside the enum',
    check: 'response_schema_conformance',
    create: onAnswer(
      ({ route, response }) => route.operation === 'createEvaluation' && response.status === 202,
      (response) => rewrite(response, (job) => ({ ...job, status: 'DONE' })),
    ),
  },
  {
    name: 'job-extra-property',
    rule: 'a Job read has an undocumented property (additionalProperties: false)',
    check: 'response_schema_conformance',
    create: onAnswer(
      ({ route, response }) => route.operation === 'getJob' && response.status === 200,
      (response) => rewrite(response, (job) => ({ ...job, progress: 50 })),
    ),
  },
  {
    name: 'evaluation-bad-enum',
    rule: 'a COMPLETE job says evaluation "SUCCESS", outside the enum',
    check: 'response_schema_conformance',
    create: onAnswer(
      ({ body }) => isJob(body) && body.status === 'COMPLETE',
      (response) => rewrite(response, (job) => ({ ...job, evaluation: 'SUCCESS' })),
    ),
  },
  {
    name: 'limitation-too-long',
    rule: 'a COMPLETE job has a limitation of 2049 characters (maxLength 2048)',
    check: 'response_schema_conformance',
    create: onAnswer(
      ({ body }) => isJob(body) && body.status === 'COMPLETE',
      (response) => rewrite(response, (job) => ({ ...job, limitations: ['x'.repeat(2049)] })),
    ),
  },
  {
    name: 'error-without-code',
    rule: 'Error bodies have no code',
    check: 'error_body',
    create: onAnswer(
      ({ response }) => response.status >= 400,
      (response) => rewrite(response, ({ code: _code, ...rest }) => rest),
    ),
  },
  {
    name: 'error-message-too-long',
    rule: 'the 404 Error message is 1025 characters (maxLength 1024)',
    check: 'error_body',
    create: onAnswer(
      ({ response }) => response.status === 404,
      (response) => rewrite(response, (error) => ({ ...error, message: 'm'.repeat(1025) })),
    ),
  },
  {
    name: 'not-found-empty-body',
    rule: 'getJob answers 404 with an empty body',
    check: 'error_body',
    create: onAnswer(
      ({ route, response }) => route.operation === 'getJob' && response.status === 404,
      async () => new Response('', { status: 404, headers: { 'content-type': 'application/json' } }),
    ),
  },
  {
    name: 'job-as-text-plain',
    rule: 'a Job read is served as text/plain',
    check: 'content_type_documented',
    create: onAnswer(
      ({ route, response }) => route.operation === 'getJob' && response.status === 200,
      async (response) => new Response(await response.text(), { status: 200, headers: { 'content-type': 'text/plain' } }),
    ),
  },
  {
    name: 'errors-as-problem-json',
    rule: 'errors are served as application/problem+json (A-21)',
    check: 'content_type_documented',
    create: onAnswer(
      ({ response }) => response.status >= 400,
      async (response) => {
        const headers = new Headers(response.headers);
        headers.set('content-type', 'application/problem+json');
        return new Response(await response.text(), { status: response.status, headers });
      },
    ),
  },
  {
    name: 'created-201',
    rule: 'createEvaluation answers 201 instead of the documented 202',
    check: 'status_code_documented',
    create: onAnswer(
      ({ route, response }) => route.operation === 'createEvaluation' && response.status === 202,
      (response) => rewrite(response, (job) => job, 201),
    ),
  },
  {
    name: 'over-maximum-400',
    rule: 'a value over a maximum on createEvaluation gets 400 instead of 413 (A-2)',
    check: 'negative_data_rejection',
    create: onAnswer(
      ({ route, body }) => route.operation === 'createEvaluation' && body?.code === 'limit_exceeded',
      (response) => rewrite(response, (error) => ({ ...error, code: 'invalid_request' }), 400),
    ),
  },
  {
    name: 'pattern-413',
    rule: 'a digest breaking its pattern gets 413 instead of 400 (A-2, A-6)',
    check: 'negative_data_rejection',
    create: () => async (request, engine) => {
      const text = route(request) === 'createEvaluation' ? await request.clone().text() : '';
      const response = await engine.handle(request);
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        return response;
      }
      const digest = body?.instructionDigest;
      return response.status === 400 && typeof digest === 'string' && !/^[0-9a-f]{64}$/.test(digest)
        ? rewrite(response, () => ({ code: 'limit_exceeded', message: 'instructionDigest is too long.' }), 413)
        : response;
    },
  },
  {
    name: 'digest-length-only',
    rule: 'instructionDigest is checked for its length only, so a non-hex character is accepted (pattern ^[0-9a-f]{64}$)',
    check: 'negative_data_rejection',
    create: () => async (request, engine) =>
      engine.handle(
        route(request) === 'createEvaluation'
          ? await withBody(request, (body) =>
              typeof body?.instructionDigest === 'string' && body.instructionDigest.length === 64
                ? { ...body, instructionDigest: '0'.repeat(64) }
                : body,
            )
          : request,
      ),
  },
  {
    name: 'accepts-unknown-property',
    rule: 'an unknown top-level property of EvaluationRequest is ignored instead of rejected',
    check: 'negative_data_rejection',
    create: () => async (request, engine) => {
      if (route(request) !== 'createEvaluation' || Number(request.headers.get('content-length') ?? 0) > 65_536)
        return engine.handle(request);
      const known = new Set(['profile', 'operationId', 'instructionDigest', 'policyDigest', 'evidence']);
      return engine.handle(
        await withBody(request, (body) =>
          body && typeof body === 'object' && !Array.isArray(body)
            ? Object.fromEntries(Object.entries(body).filter(([key]) => known.has(key)))
            : body,
        ),
      );
    },
  },
  {
    name: 'counts-utf16-units',
    rule: 'operationId length is counted in UTF-16 units, so 128 emoji are refused (A-1)',
    check: 'positive_data_acceptance',
    create: () => async (request, engine) => {
      if (route(request) === 'createEvaluation') {
        const body = await bodyOf(request);
        if (typeof body?.operationId === 'string' && body.operationId.length > 128) {
          return json(413, { code: 'limit_exceeded', message: '/operationId must be at most 128 characters long.' });
        }
      }
      return engine.handle(request);
    },
  },
  {
    name: 'max-items-off-by-one',
    rule: 'exactly 64 evidence items (the maximum) are refused',
    check: 'positive_data_acceptance',
    create: () => async (request, engine) => {
      if (route(request) === 'createEvaluation') {
        const body = await bodyOf(request);
        if (Array.isArray(body?.evidence) && body.evidence.length === 64) {
          return json(413, { code: 'limit_exceeded', message: '/evidence must have fewer than 64 items.' });
        }
      }
      return engine.handle(request);
    },
  },
  {
    name: 'server-error-on-valid-input',
    rule: 'a valid evidence network of more than 100 characters crashes the server (500)',
    check: 'not_a_server_error',
    create: () => async (request, engine) => {
      const body = route(request) === 'createEvaluation' ? await bodyOf(request) : undefined;
      const response = await engine.handle(request);
      const long =
        Array.isArray(body?.evidence) &&
        body.evidence.some((item: any) => typeof item?.network === 'string' && [...item.network].length > 100);
      return response.status === 202 && long ? json(500, { code: 'internal_error', message: 'NullPointerException' }) : response;
    },
  },
  {
    name: 'malformed-json-500',
    rule: 'malformed JSON crashes the parser (500 instead of 400)',
    check: 'malformed_json_rejected',
    create: onAnswer(
      ({ body }) => body?.code === 'invalid_json',
      (response) => rewrite(response, () => ({ code: 'internal_error', message: 'Unexpected end of JSON input' }), 500),
    ),
  },
  {
    name: 'malformed-json-hangs',
    rule: 'malformed JSON is never answered (as Prism 5 does)',
    check: 'malformed_json_rejected',
    options: { timeoutMs: 1000 },
    create: () => async (request, engine) => {
      const response = await engine.handle(request);
      if ((await bodyOf(response))?.code === 'invalid_json') return new Promise<Response>(() => undefined);
      return response;
    },
  },
  {
    name: 'missing-key-accepted',
    rule: 'createEvaluation without Idempotency-Key is accepted (a key is made up)',
    check: 'missing_required_header',
    create: () => async (request, engine) => {
      if (route(request) !== 'createEvaluation' || request.headers.has('idempotency-key')) return engine.handle(request);
      const headers = new Headers(request.headers);
      headers.set('idempotency-key', `made-up-${crypto.randomUUID()}`);
      return engine.handle(new Request(request.url, { method: 'POST', headers, body: await request.text() }));
    },
  },
  {
    name: 'no-409-on-conflict',
    rule: 'a key reused with another body creates a new job instead of 409',
    check: 'idempotency_conflict',
    create: () => async (request, engine) => {
      if (route(request) !== 'createEvaluation') return engine.handle(request);
      const text = await request.text();
      const forward = (headers: Headers) => engine.handle(new Request(request.url, { method: 'POST', headers, body: text }));
      const response = await forward(new Headers(request.headers));
      if (response.status !== 409) return response;
      const headers = new Headers(request.headers);
      headers.set('idempotency-key', `fresh-${crypto.randomUUID()}`);
      return forward(headers);
    },
  },
  {
    name: 'replay-new-job',
    rule: 'the exact same request sent again with the same key creates a new job',
    check: 'idempotent_replay',
    create: () => {
      const seen = new Map<string, string>();
      return async (request, engine) => {
        const key = request.headers.get('idempotency-key');
        if (route(request) !== 'createEvaluation' || !key) return engine.handle(request);
        const text = await request.clone().text();
        const replay = seen.get(key) === text;
        seen.set(key, text);
        if (!replay) return engine.handle(request);
        const headers = new Headers(request.headers);
        headers.set('idempotency-key', `again-${crypto.randomUUID()}`);
        return engine.handle(new Request(request.url, { method: 'POST', headers, body: text }));
      };
    },
  },
  {
    name: 'digest-over-raw-bytes',
    rule: 'the request digest covers the raw bytes, so a re-serialised equal body is a conflict (A-5)',
    check: 'reserialized_replay',
    create: () => {
      const seen = new Map<string, string>();
      return async (request, engine) => {
        const key = request.headers.get('idempotency-key');
        if (route(request) !== 'createEvaluation' || !key) return engine.handle(request);
        const text = await request.clone().text();
        const earlier = seen.get(key);
        if (earlier !== undefined && earlier !== text) return json(409, { code: 'idempotency_key_conflict', message: 'Different bytes.' });
        const response = await engine.handle(request);
        if (response.status === 202) seen.set(key, text);
        return response;
      };
    },
  },
  {
    name: 'jobs-shared-between-callers',
    rule: 'a job created by one caller is readable by another (Authorization ignored)',
    check: 'second_caller_isolation',
    create: () => async (request, engine) => {
      const headers = new Headers(request.headers);
      headers.delete('authorization');
      return engine.handle(
        new Request(request.url, {
          method: request.method,
          headers,
          ...(request.body ? { body: await request.arrayBuffer(), duplex: 'half' } : {}),
        } as RequestInit),
      );
    },
  },
  {
    name: 'unknown-job-200',
    rule: 'a jobId no job has is answered 200 with a made-up QUEUED job',
    check: 'unknown_job_not_found',
    create: () => async (request, engine) => {
      const { operation, jobId } = routeOf(request);
      const response = await engine.handle(request);
      if (operation !== 'getJob' || response.status !== 404 || !jobId || [...jobId].length > 128) return response;
      if (await engine.control.inspectJob(jobId)) return response; // someone else's: still 404
      return json(200, { jobId, status: 'QUEUED' });
    },
  },
  {
    name: 'created-job-not-found-at-first',
    rule: 'the first read of a new job answers 404 (eventual consistency leaking out)',
    check: 'created_job_readable',
    create: () => {
      const count = readCounter();
      return async (request, engine) => {
        const { operation, jobId } = routeOf(request);
        if (operation === 'getJob' && jobId && (await engine.control.inspectJob(jobId)) && count(jobId) === 1) {
          return json(404, { code: 'job_not_found', message: 'No job with this jobId is available to this caller.' });
        }
        return engine.handle(request);
      };
    },
  },
  {
    name: 'status-moves-back',
    rule: 'the second read of a job shows QUEUED after RUNNING (A-3)',
    check: 'job_status_moves_forward',
    create: () => {
      const count = readCounter();
      return async (request, engine) => {
        const { operation, jobId } = routeOf(request);
        const response = await engine.handle(request);
        if (operation !== 'getJob' || response.status !== 200 || !jobId) return response;
        return count(jobId) === 2 ? rewrite(response, (job) => (job.status === 'RUNNING' ? { ...job, status: 'QUEUED' } : job)) : response;
      };
    },
  },
  {
    name: 'final-state-changes',
    rule: 'a COMPLETE job answers RUNNING on later reads (A-3)',
    check: 'final_state_stays_final',
    create: () => {
      const finished = new Set<string>();
      return async (request, engine) => {
        const response = await engine.handle(request);
        const body = await bodyOf(response);
        if (!isJob(body) || routeOf(request).operation !== 'getJob' || body.status !== 'COMPLETE') return response;
        if (!finished.has(body.jobId)) {
          finished.add(body.jobId);
          return response;
        }
        return rewrite(response, ({ evaluation: _evaluation, limitations: _limitations, ...job }) => ({ ...job, status: 'RUNNING' }));
      };
    },
  },
  {
    name: 'complete-without-evaluation',
    rule: 'a COMPLETE job has no evaluation (A-4)',
    check: 'evaluation_when_complete',
    create: onAnswer(
      ({ body }) => isJob(body) && body.status === 'COMPLETE',
      (response) => rewrite(response, ({ evaluation: _evaluation, ...job }) => job),
    ),
  },
  {
    name: 'evaluation-while-running',
    rule: 'a RUNNING job already has an evaluation (A-4)',
    check: 'no_evaluation_before_complete',
    create: onAnswer(
      ({ body }) => isJob(body) && body.status === 'RUNNING',
      (response) => rewrite(response, (job) => ({ ...job, evaluation: 'PASS' })),
    ),
  },
  {
    name: 'job-never-finishes',
    rule: 'a job stays RUNNING forever (A-22)',
    check: 'job_reaches_final_state',
    options: { jobTimeoutMs: 1200 },
    create: onAnswer(
      ({ body }) => isJob(body) && (body.status === 'COMPLETE' || body.status === 'FAILED'),
      (response) => rewrite(response, ({ evaluation: _evaluation, limitations: _limitations, ...job }) => ({ ...job, status: 'RUNNING' })),
    ),
  },
  {
    name: 'error-code-not-listed',
    rule: "an unknown job's Error code is 'not_found', not one of A-7's codes",
    check: 'error_code_documented',
    create: onAnswer(
      ({ body }) => body?.code === 'job_not_found',
      (response) => rewrite(response, (error) => ({ ...error, code: 'not_found' })),
    ),
  },
  {
    name: 'long-job-id-400',
    rule: 'a 129-character jobId gets 400 instead of 404 (A-23)',
    check: 'invalid_job_id_not_found',
    create: () => async (request, engine) => {
      const { operation, jobId } = routeOf(request);
      if (operation === 'getJob' && jobId && [...jobId].length > 128)
        return json(400, { code: 'invalid_request', message: 'jobId is too long.' });
      return engine.handle(request);
    },
  },
  {
    name: 'oversized-body-400',
    rule: 'a createEvaluation body over 2 MiB gets 400 instead of 413 (A-13)',
    check: 'oversized_body_rejected',
    create: onAnswer(
      ({ route, body }) => route.operation === 'createEvaluation' && body?.code === 'body_too_large',
      (response) => rewrite(response, (error) => error, 400),
    ),
  },
  {
    name: 'no-405',
    rule: 'an undeclared method on a contract path gets 404 instead of 405 (A-20)',
    check: 'undeclared_method_rejected',
    create: onAnswer(
      ({ response }) => response.status === 405,
      async () => json(404, { code: 'route_not_found', message: 'Not here.' }),
    ),
  },
  {
    name: 'catch-all-200',
    rule: 'every path outside /v0 answers 200 (a catch-all route) (A-20)',
    check: 'undeclared_path_not_found',
    create: () => async (request, engine) =>
      new URL(request.url).pathname.startsWith('/v0/') || new URL(request.url).pathname === '/health'
        ? engine.handle(request)
        : json(200, { status: 'ok' }),
  },
  {
    name: 'always-rate-limited',
    rule: 'verifyReport always answers 429, even after Retry-After (A-11)',
    check: 'not_rate_limited',
    create: () => async (request, engine) =>
      route(request) === 'verifyReport'
        ? json(429, { code: 'rate_limited', message: 'Slow down.' }, { 'retry-after': '0' })
        : engine.handle(request),
  },
  {
    name: 'verification-rejects-jws',
    rule: "verifyReport rejects the documented example's compact-JWS artifact with 400",
    check: 'verification_result',
    create: () => async (request, engine) => {
      if (route(request) === 'verifyReport') {
        const body = await bodyOf(request);
        if (typeof body?.artifact === 'string' && /^[\w-]+\.[\w-]+\.[\w-]+$/.test(body.artifact)) {
          return json(400, { code: 'invalid_request', message: 'artifact is not accepted.' });
        }
      }
      return engine.handle(request);
    },
  },
];

function route(request: Request): Operation | undefined {
  return routeOf(request).operation;
}

/** The clean server: the engine's answers, unchanged. */
export const cleanHandler = (): FaultHandler => async (request: Request, engine: MockEngine) => engine.handle(request);
