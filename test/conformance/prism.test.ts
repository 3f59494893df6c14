/**
 * Second opinions from Prism 5 (@stoplight/prism-cli), started as a child process on a free
 * loopback port and stopped by each test.
 *
 * - `prism proxy --errors` between the runner and the mock: over the whole run, Prism finds no
 *   violation in any answer of the mock, and its request validation agrees with the runner's
 *   about which inputs are valid (every valid input is forwarded, every single-constraint
 *   mutation is flagged as a request violation).
 * - `prism mock` (stateless): the runner reports what a stateless mock cannot do (no 409, no
 *   404 for unknown or foreign jobs) and finishes, however Prism answers.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Exchange } from '../../src/conformance/exchange.js';
import { runConformance } from '../../src/conformance/run.js';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { startPrism } from './prism-support.js';

const callers = { headers: { Authorization: 'Bearer alice' }, secondCallerHeaders: { Authorization: 'Bearer bob' } };

/** Prism's sl-violations header, parsed: [{ location: ['request'|'response', ...], severity, message }]. */
function violationsOf(exchange: Exchange): { location: string[]; severity: string; message: string }[] {
  const header = exchange.response?.headers['sl-violations'];
  if (!header) return [];
  return JSON.parse(header.startsWith('Too many') ? '[]' : header);
}

/** Intents whose request is valid against the spec (Prism must forward them unflagged). */
const validIntents = new Set([
  'preflight',
  'positive',
  'create',
  'read-created',
  'poll',
  'replay',
  'reserialized-replay',
  'conflict',
  'second-caller',
  'unknown-job',
  'verification-example',
]);

let mock: RunningMockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
});
afterAll(async () => {
  await mock.close();
});

it('finds no violation in the mock behind prism proxy --errors over a whole run', async () => {
  const prism = await startPrism({ args: ['proxy', 'spec/openapi.yaml', mock.url, '--errors'] });
  const exchanges: Exchange[] = [];
  try {
    const report = await runConformance({
      baseUrl: prism.url,
      seed: 11,
      timeoutMs: 5000,
      examplesPerOperation: 20,
      ...callers,
      onExchange: (exchange) => exchanges.push(exchange),
    });
    expect(exchanges.length).toBeGreaterThan(100);
    // Prism turns a response violation into a 500 "VIOLATIONS" problem and logs it; none may occur.
    const responseViolations = exchanges.flatMap((exchange) =>
      violationsOf(exchange).filter((violation) => violation.location[0] === 'response'),
    );
    expect(responseViolations).toEqual([]);
    expect(exchanges.filter((exchange) => exchange.response?.bodyText.includes('prism/errors#VIOLATIONS'))).toEqual([]);
    expect(prism.output()).not.toMatch(/Violation: response/);
    // Prism's request validation agrees with the runner's notion of a valid input.
    // A dot segment is resolved away (/v0/jobs/. is /v0/jobs/, an empty jobId): not a valid input, and Prism says so.
    const dotSegment = (exchange: Exchange) => exchange.intent.kind === 'unknown-job' && exchange.intent.dotSegment === true;
    const flaggedValid = exchanges.filter(
      (exchange) => validIntents.has(exchange.intent.kind) && !dotSegment(exchange) && exchange.response?.status === 422,
    );
    expect(flaggedValid.map((exchange) => `${exchange.intent.kind} ${exchange.request.method} ${exchange.request.url}`)).toEqual([]);
    const mutations = exchanges.filter((exchange) => exchange.intent.kind === 'negative');
    expect(mutations.length).toBeGreaterThan(40);
    expect(mutations.filter((exchange) => exchange.response?.status !== 422).map((exchange) => exchange.intent)).toEqual([]);
    // What Prism forwards, the mock answers correctly: the checks on valid inputs all pass.
    const onValidInputs = [
      'status_code_documented',
      'response_schema_conformance',
      'not_a_server_error',
      'positive_data_acceptance',
      'created_job_readable',
      'idempotent_replay',
      'idempotency_conflict',
      'second_caller_isolation',
      'unknown_job_not_found',
      'verification_result',
    ];
    // Prism refuses a body over 10 MB itself (413), before anything reaches the mock: the largest
    // verifyReport, every character \u-escaped, is 12.6 MB. That is Prism's limit, not the mock's answer.
    const prismBodyLimit = (failure: { received: string }) => failure.received.includes('Body exceeded 10mb limit');
    expect(
      report.checks.filter(
        (check) =>
          onValidInputs.includes(check.name) &&
          check.status !== 'passed' &&
          !(check.name === 'positive_data_acceptance' && check.failures.every(prismBodyLimit)),
      ),
    ).toEqual([]);
  } finally {
    await prism.stop();
  }
});

it("reports what Prism's stateless mock cannot do, and finishes", async () => {
  const prism = await startPrism({ args: ['mock', 'spec/openapi.yaml'] });
  try {
    const report = await runConformance({
      baseUrl: prism.url,
      seed: 11,
      timeoutMs: 2000,
      jobTimeoutMs: 2000,
      // Room for the stateful sequences (about 130 requests), the edge probes (26) and the mutations after them.
      maxRequests: 320,
      ...callers,
    });
    const failed = report.checks.filter((check) => check.status === 'failed').map((check) => check.name);
    expect(failed).toEqual(
      expect.arrayContaining(['idempotency_conflict', 'unknown_job_not_found', 'second_caller_isolation', 'negative_data_rejection']),
    );
    expect(report.passed).toBe(false);
    for (const failure of report.checks.flatMap((check) => check.failures)) expect(failure.curl).toMatch(/^curl -i -X /);
  } finally {
    await prism.stop();
  }
});
