/**
 * Coverage of the contract (issue 12, point 3): the report lists every input constraint of the
 * spec with what exercised it valid and broken, and why a side was not, in every format.
 */
import { expect, it } from 'vitest';
import type { Exchange } from '../../src/conformance/exchange.js';
import { coverageGaps } from '../../src/conformance/report/coverage.js';
import { renderHtml } from '../../src/conformance/report/html-report.js';
import { renderJunit } from '../../src/conformance/report/junit-report.js';
import { renderSummary } from '../../src/conformance/report/summary-text.js';
import { runConformance } from '../../src/conformance/run.js';
import { createMockEngine } from '../../src/engine/index.js';

async function run(options: { maxRequests?: number; checks?: string[]; onExchange?: (exchange: Exchange) => void } = {}) {
  const engine = createMockEngine({ seed: 3 });
  return runConformance({
    baseUrl: 'http://mock.test',
    fetch: (request) => engine.handle(request),
    seed: 11,
    runId: 'coverage',
    examplesPerOperation: 5,
    secondCallerHeaders: { Authorization: 'Bearer bob' },
    ...options,
  });
}

const find = (report: Awaited<ReturnType<typeof run>>, label: { operation: string; target: string; constraint: string }) =>
  report.coverage!.constraints.find(
    (entry) => entry.operation === label.operation && entry.target === label.target && entry.constraint === label.constraint,
  )!;

it('exercises every constraint of the spec both ways against the mock, but the types of headers and path segments, and says why', async () => {
  const report = await run();
  const coverage = report.coverage!;
  expect(coverage.constraints.length).toBeGreaterThan(50);
  expect(coverage.totals.neither).toBe(0);
  const oneWay = coverage.constraints.filter((entry) => entry.positive.why !== undefined || entry.negative.why !== undefined);
  expect(oneWay.map((entry) => `${entry.operation} ${entry.location} ${entry.target} ${entry.constraint}: ${entry.negative.why}`)).toEqual([
    'createEvaluation header Idempotency-Key type: no mutation possible: a header value is always text',
    'getJob path jobId type: no mutation possible: a path segment is always text',
  ]);
  // Each near-miss family reached its constraint: three uri format mutations, four digest pattern ones.
  expect(find(report, { operation: 'createEvaluation', target: '/evidence/0/uri', constraint: 'format' }).negative.answered).toBe(3);
  expect(find(report, { operation: 'createEvaluation', target: '/instructionDigest', constraint: 'pattern' }).negative.answered).toBe(4);
  expect(find(report, { operation: 'createEvaluation', target: '/', constraint: 'json-syntax' }).negative.answered).toBe(7);
  expect(find(report, { operation: 'verifyReport', target: '/', constraint: 'media-type' }).negative.answered).toBe(4);
  // A limit is exercised valid only by a value exactly on it.
  expect(find(report, { operation: 'createEvaluation', target: '/evidence', constraint: 'maxItems' }).positive.answered).toBe(1);
  expect(coverage.statuses).toContainEqual({ operation: 'createEvaluation', status: '413', seen: expect.any(Number) });
  expect(coverage.statuses.find((status) => status.operation === 'createEvaluation' && status.status === '413')!.seen).toBeGreaterThan(0);
});

it('says which constraints --max-requests left unexercised', async () => {
  const report = await run({ maxRequests: 40 });
  const digest = find(report, { operation: 'createEvaluation', target: '/instructionDigest', constraint: 'pattern' });
  expect(digest.negative).toEqual({ answered: 0, why: expect.stringMatching(/^4 not sent: --max-requests 40 was reached$/) });
  expect(coverageGaps(report.coverage!)).toContain(
    'createEvaluation body /instructionDigest: pattern ^[0-9a-f]{64}$ — broken: 4 not sent: --max-requests 40 was reached',
  );
});

it('says a side was not exercised because no selected check needed it', async () => {
  const report = await run({ checks: ['positive_data_acceptance'] });
  const operationId = find(report, { operation: 'createEvaluation', target: '/operationId', constraint: 'maxLength' });
  expect(operationId.positive.answered).toBeGreaterThan(0);
  expect(operationId.negative.why).toBe('not sent: no selected check needs these requests (--checks, --exclude-checks)');
});

it('sends boundary values that are equal once, naming every limit they sit on', async () => {
  const targets: string[][] = [];
  await run({
    checks: ['positive_data_acceptance'],
    onExchange: (exchange) => {
      if (exchange.intent.kind === 'positive' && exchange.intent.targets && exchange.operationId === 'createEvaluation')
        targets.push(exchange.intent.targets.map((target) => `${target.pointer} ${target.constraint}`));
    },
  });
  expect(targets).toContainEqual(['/operationId minLength', '/evidence minItems', '/evidence/0/id minLength']);
});

it('shows the coverage in the summary, the JUnit and the HTML reports', async () => {
  const report = await run();
  const line =
    /coverage: \d+ of \d+ input constraints exercised both ways \(valid and broken\), 2 one way only · documented statuses seen: \d+ of \d+/;
  expect(renderSummary(report)).toMatch(line);
  expect(renderSummary(report)).toContain(
    '  - getJob path jobId: type string — broken: no mutation possible: a path segment is always text',
  );
  const junit = renderJunit(report);
  expect(junit).toMatch(/<property name="coverage" value="coverage: /);
  expect(junit).toMatch(/<system-out>coverage: [\s\S]*Not exercised:[\s\S]*a header value is always text[\s\S]*<\/system-out>/);
  const html = renderHtml(report);
  expect(html).toContain('<h2>Coverage of the contract</h2>');
  expect(html).toContain('<code>pattern ^[0-9a-f]{64}$</code>');
});
