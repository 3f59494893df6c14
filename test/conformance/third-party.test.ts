/**
 * Third-party mocks of the contract as acceptance targets, with the runner's verdict on each
 * check written down: Prism 5 (a devDependency) plain and with --dynamic, Mockoon's CLI 9.9 and
 * an openapi-backend 5.20 mock server. None of them keeps state, so the stateful rules fail (or
 * cannot run) and the run never passes. Mockoon and openapi-backend are not dependencies: their
 * tests are skipped, saying so, unless they are installed (third-party-mocks.ts).
 */
import { expect, it } from 'vitest';
import type { ConformanceReport } from '../../src/conformance/report/report.js';
import { runConformance } from '../../src/conformance/run.js';
import { testTimeout } from '../support/time-limits.js';
import { startPrism } from './prism-support.js';
import { type RunningThirdParty, startMockoon, startOpenapiBackend, thirdPartyPackage } from './third-party-mocks.js';

type Status = 'passed' | 'failed' | 'skipped';

async function judge(start: () => Promise<RunningThirdParty>): Promise<ConformanceReport> {
  const target = await start();
  try {
    return await runConformance({
      baseUrl: target.url,
      seed: 17,
      timeoutMs: 2000,
      jobTimeoutMs: 3000,
      examplesPerOperation: 5,
      headers: { Authorization: 'Bearer alice' },
      secondCallerHeaders: { Authorization: 'Bearer bob' },
    });
  } finally {
    await target.stop();
  }
}

function statuses(report: ConformanceReport): Record<string, Status> {
  return Object.fromEntries(report.checks.map((check) => [check.name, check.status]));
}

const prism = (args: string[]) => async () => {
  const running = await startPrism({ args: ['mock', 'spec/openapi.yaml', ...args] });
  return { url: running.url, stop: running.stop };
};

/** What every stateless mock of this contract gets, whatever it answers otherwise. */
const allChecksPassing = (overrides: Record<string, Status>): Record<string, Status> => ({
  status_code_documented: 'passed',
  content_type_documented: 'passed',
  response_schema_conformance: 'passed',
  response_headers_conformance: 'passed',
  error_body: 'passed',
  not_a_server_error: 'passed',
  positive_data_acceptance: 'passed',
  negative_data_rejection: 'passed',
  missing_required_header: 'passed',
  malformed_json_rejected: 'passed',
  created_job_readable: 'passed',
  job_reaches_final_state: 'passed',
  idempotent_replay: 'passed',
  idempotency_conflict: 'passed',
  distinct_keys_distinct_jobs: 'passed',
  keys_compared_exactly: 'passed',
  replay_after_job_final: 'passed',
  concurrent_duplicates_one_job: 'passed',
  concurrent_bodies_one_accepted: 'passed',
  second_caller_isolation: 'passed',
  key_scoped_to_caller: 'passed',
  unknown_job_not_found: 'passed',
  verification_result: 'passed',
  job_status_moves_forward: 'passed',
  final_state_stays_final: 'passed',
  evaluation_when_complete: 'passed',
  no_evaluation_before_complete: 'passed',
  reserialized_replay: 'passed',
  refused_request_frees_key: 'passed',
  error_code_documented: 'passed',
  invalid_job_id_not_found: 'passed',
  oversized_body_rejected: 'passed',
  undeclared_method_rejected: 'passed',
  undeclared_path_not_found: 'passed',
  ignored_auth: 'passed',
  not_rate_limited: 'passed',
  unsupported_media_type_rejected: 'passed',
  limitations_only_when_final: 'passed',
  ...overrides,
});

it(
  'prism mock (static examples): every create gives the same job, so two keys give one job; no 409, no 404',
  async () => {
    const report = await judge(prism([]));
    expect(statuses(report)).toEqual(
      allChecksPassing({
        // Prism 5.14.2 answers its own validation failures 400 with a problem+json body without code.
        error_body: 'failed',
        negative_data_rejection: 'failed',
        idempotency_conflict: 'failed',
        distinct_keys_distinct_jobs: 'failed',
        second_caller_isolation: 'failed',
        // One job for every key: whether keys are the caller's own, whether forms of a key are keys of
        // their own, and whether rounds of a race give one job each are not asked (distinct_keys_distinct_jobs reports it).
        key_scoped_to_caller: 'skipped',
        keys_compared_exactly: 'skipped',
        concurrent_duplicates_one_job: 'skipped',
        // No 409: different bodies at once are all taken (idempotency_conflict reports it).
        concurrent_bodies_one_accepted: 'skipped',
        unknown_job_not_found: 'failed',
        // Prism refuses a body over 10 MB (413): the largest valid verifyReport, \u-escaped, is 12.6 MB (A-13's limit is 16 MiB).
        positive_data_acceptance: 'failed',
        // Jobs shared between callers are shared with no caller too: second_caller_isolation reports it.
        ignored_auth: 'skipped',
        // The example job is COMPLETE from its first read.
        job_status_moves_forward: 'skipped',
        no_evaluation_before_complete: 'skipped',
        invalid_job_id_not_found: 'failed',
        oversized_body_rejected: 'failed',
        undeclared_method_rejected: 'failed',
        // Prism takes a body under any media type (A-21 asks for 415).
        unsupported_media_type_rejected: 'failed',
        // The example job is COMPLETE from its first read: no earlier state to carry limitations.
        limitations_only_when_final: 'skipped',
      }),
    );
    expect(report.verdict).toBe('failed');
  },
  testTimeout({ processes: 4 }),
);

it(
  'prism mock --dynamic: random jobIds, so a replay and a read of a created job show other jobs',
  async () => {
    const report = await judge(prism(['--dynamic']));
    // Random answers: only the verdicts that do not depend on what was drawn are written down.
    expect(statuses(report)).toMatchObject({
      status_code_documented: 'passed',
      response_schema_conformance: 'passed',
      created_job_readable: 'failed',
      idempotent_replay: 'failed',
      idempotency_conflict: 'failed',
      // distinct_keys_distinct_jobs is left out: it passed in every run but one, on Node 22 in CI,
      // where two creates got the same jobId from Prism; why Prism drew it twice was not found.
      second_caller_isolation: 'failed',
      unknown_job_not_found: 'failed',
      reserialized_replay: 'skipped',
    });
    expect(report.verdict).toBe('failed');
  },
  testTimeout({ processes: 4 }),
);

const mockoon = thirdPartyPackage('@mockoon/cli');
it.skipIf(!mockoon)(
  `mockoon-cli 9.9 on the OpenAPI document: an empty jobId, so no stateful check can run${mockoon ? '' : ' (skipped: @mockoon/cli is not installed)'}`,
  async () => {
    const report = await judge(() => startMockoon(mockoon!));
    const noJob: Status = 'skipped';
    expect(statuses(report)).toEqual(
      allChecksPassing({
        response_schema_conformance: 'failed',
        // Mockoon never answers 4xx or 5xx: no Error body to judge.
        error_body: 'skipped',
        error_code_documented: 'skipped',
        negative_data_rejection: 'failed',
        missing_required_header: 'failed',
        malformed_json_rejected: 'failed',
        created_job_readable: noJob,
        job_reaches_final_state: noJob,
        idempotent_replay: noJob,
        idempotency_conflict: noJob,
        distinct_keys_distinct_jobs: noJob,
        keys_compared_exactly: noJob,
        replay_after_job_final: noJob,
        concurrent_duplicates_one_job: noJob,
        concurrent_bodies_one_accepted: noJob,
        second_caller_isolation: noJob,
        key_scoped_to_caller: noJob,
        ignored_auth: noJob,
        unknown_job_not_found: 'failed',
        job_status_moves_forward: noJob,
        final_state_stays_final: noJob,
        no_evaluation_before_complete: 'failed',
        reserialized_replay: noJob,
        refused_request_frees_key: noJob,
        invalid_job_id_not_found: 'failed',
        oversized_body_rejected: 'failed',
        undeclared_method_rejected: 'failed',
        // Mockoon answers every body 2xx, whatever its media type, and serves a Job built from
        // the schema, limitations included, whatever its status.
        unsupported_media_type_rejected: 'failed',
        limitations_only_when_final: 'failed',
      }),
    );
    expect(report.verdict).toBe('failed');
  },
  testTimeout({ processes: 4 }),
);

const openapiBackend = thirdPartyPackage('openapi-backend');
it.skipIf(!openapiBackend)(
  `openapi-backend 5.20 mock (examples, request validation): one job for every key, never final${openapiBackend ? '' : ' (skipped: openapi-backend is not installed)'}`,
  async () => {
    const report = await judge(() => startOpenapiBackend(openapiBackend!));
    expect(statuses(report)).toEqual(
      allChecksPassing({
        negative_data_rejection: 'failed',
        job_reaches_final_state: 'failed',
        idempotency_conflict: 'failed',
        distinct_keys_distinct_jobs: 'failed',
        // Never final: no key is seen outliving its job.
        replay_after_job_final: 'skipped',
        second_caller_isolation: 'failed',
        // One job for every key, and no 409: distinct_keys_distinct_jobs and idempotency_conflict report them.
        key_scoped_to_caller: 'skipped',
        keys_compared_exactly: 'skipped',
        concurrent_duplicates_one_job: 'skipped',
        concurrent_bodies_one_accepted: 'skipped',
        // Shared between callers, so with no caller too: second_caller_isolation reports it.
        ignored_auth: 'skipped',
        unknown_job_not_found: 'failed',
        final_state_stays_final: 'skipped',
        evaluation_when_complete: 'skipped',
        invalid_job_id_not_found: 'failed',
        oversized_body_rejected: 'failed',
        undeclared_method_rejected: 'failed',
        // Its request validation does not look at the media type (A-21 asks for 415).
        unsupported_media_type_rejected: 'failed',
      }),
    );
    expect(report.verdict).toBe('failed');
  },
  testTimeout({ processes: 4 }),
);
