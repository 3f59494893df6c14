/**
 * The report formats: JUnit XML that CI tools read (a required failure is a <failure>, an
 * advisory one is not unless strict), JSON with every check, and an HTML page that needs
 * nothing from the network.
 */
import { expect, it } from 'vitest';
import { renderHtml } from '../../src/conformance/report/html-report.js';
import { renderJson } from '../../src/conformance/report/json-report.js';
import { renderJunit } from '../../src/conformance/report/junit-report.js';
import type { ConformanceReport } from '../../src/conformance/report/report.js';
import { renderSummary } from '../../src/conformance/report/summary-text.js';
import { parseReportTarget } from '../../src/conformance/report/write-reports.js';

const failure = {
  severity: 'required' as const,
  operation: 'createEvaluation',
  title: 'key reused with another body answered 202',
  expected: '409',
  received: '202 {"jobId":"job_<1>&"}',
  input: 'the Idempotency-Key of job job_1 with a different body',
  curl: "curl -i -X POST 'http://127.0.0.1:1/v0/evaluations'",
  exchange: 12,
  occurrences: 1,
};

function report(overrides: Partial<ConformanceReport> = {}): ConformanceReport {
  return {
    tool: 'evidence-harness conformance',
    version: '0.1.0',
    target: 'http://127.0.0.1:1',
    spec: 'spec/openapi.yaml',
    seed: 3,
    runId: 'r3test01',
    startedAt: '2026-11-22T00:00:00.000Z',
    durationMs: 1500,
    requests: 20,
    maxRequests: 400,
    requestsNotSent: 0,
    strict: false,
    verdict: 'failed',
    exitCode: 1,
    incomplete: [],
    passed: false,
    notes: [],
    settings: {},
    checks: [
      {
        name: 'idempotency_conflict',
        description: 'an Idempotency-Key reused with a different body gets 409',
        severity: 'required',
        status: 'failed',
        applied: 1,
        failedExchanges: 1,
        failures: [{ ...failure, check: 'idempotency_conflict' }],
      },
      {
        name: 'error_code_documented',
        description: "an Error's code is listed",
        severity: 'advisory',
        assumption: 'A-7',
        status: 'failed',
        applied: 3,
        failedExchanges: 1,
        failures: [{ ...failure, severity: 'advisory', check: 'error_code_documented' }],
      },
      {
        name: 'second_caller_isolation',
        description: 'isolation',
        severity: 'required',
        status: 'skipped',
        applied: 0,
        failedExchanges: 0,
        note: 'no --second-caller-header',
        failures: [],
      },
      {
        name: 'unknown_job_not_found',
        description: 'unknown is 404',
        severity: 'required',
        status: 'passed',
        applied: 1,
        failedExchanges: 0,
        failures: [],
      },
    ],
    ...overrides,
  };
}

it('writes JUnit with a <failure> for a required check, an advisory one in <system-out>, and <skipped>', () => {
  const xml = renderJunit(report());
  expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites [^>]*tests="4" failures="1"/);
  expect(xml).toMatch(
    /<testcase classname="conformance\.required" name="idempotency_conflict" time="0">[\s\S]*?<failure message="1 distinct failure\(s\): key reused/,
  );
  expect(xml).toMatch(/name="error_code_documented"[\s\S]*?<system-out>ADVISORY FAILURE/);
  expect(xml).toMatch(/name="second_caller_isolation"[\s\S]*?<skipped message="no --second-caller-header"\/>/);
  expect(xml).toContain('job_&lt;1&gt;&amp;');
  expect(xml).not.toMatch(/job_<1>/);
  // Balanced: every testcase closes.
  expect(xml.match(/<testcase /g)?.length).toBe(xml.match(/<\/testcase>/g)?.length);
  expect(renderJunit(report({ strict: true }))).toMatch(/<testsuites [^>]*failures="2"/);
});

it('writes one self-contained HTML page with every check and each failure escaped', () => {
  const html = renderHtml(report());
  expect(html).toMatch(/^<!doctype html>/);
  expect(html).not.toMatch(/<script|<link|src=|@import/);
  for (const name of ['idempotency_conflict', 'error_code_documented', 'second_caller_isolation', 'unknown_job_not_found'])
    expect(html).toContain(`<code>${name}</code>`);
  expect(html).toContain('202 {&quot;jobId&quot;:&quot;job_&lt;1&gt;&amp;&quot;}');
  expect(html).toContain('FAILED');
});

it('prints a summary table with a row per check and the rerun seed', () => {
  const text = renderSummary(report());
  expect(text).toMatch(/^check +kind +result +judged +failed\n/);
  expect(text).toMatch(/\nsecond_caller_isolation +required +skip +0 +\(no --second-caller-header\)\n/);
  expect(text).toMatch(/required: 1 passed, 1 failed, 1 skipped · advisory: 0 passed, 1 failed, 0 skipped/);
  expect(text).toMatch(
    /seed 3, run id r3test01 \(rerun with --seed 3; add --run-id r3test01 for the same Idempotency-Keys, on a fresh server\) · FAILED \(exit 1\)\n$/,
  );
});

it('reads --report FORMAT=FILE', () => {
  expect(parseReportTarget('junit=out/a=b.xml')).toEqual({ format: 'junit', file: 'out/a=b.xml' });
  expect(() => parseReportTarget('html')).toThrow(/FORMAT=FILE/);
});

it('keeps JUnit and HTML well-formed when a server sent control characters and quotes', () => {
  const hostile = { ...failure, check: 'idempotency_conflict', received: `202 {"x":"a\u0000b\u001bc'd"}` };
  const withHostile = report({
    checks: [{ ...report().checks[0]!, failures: [hostile] }],
  });
  const xml = renderJunit(withHostile);
  expect(xml).toContain('received: 202 {&quot;x&quot;:&quot;abc&#39;d&quot;}');
  expect([...xml].filter((character) => character < ' ' && !'\t\n\r'.includes(character))).toEqual([]);
  expect(renderHtml(withHostile)).toContain('202 {&quot;x&quot;:&quot;abc&#39;d&quot;}');
});

it('lists failures in one order in every format, required first, with duplicates merged and counted', () => {
  const schema = { ...failure, check: 'response_schema_conformance', operation: 'getJob', title: '200 body breaks its schema' };
  const server = { ...failure, check: 'not_a_server_error', title: 'server error 500' };
  const unordered = report({
    checks: [
      { ...report().checks[1]!, failures: [{ ...failure, severity: 'advisory', check: 'error_code_documented', exchange: 3 }] },
      { ...report().checks[0]!, name: 'response_schema_conformance', failures: [schema] },
      {
        ...report().checks[0]!,
        name: 'not_a_server_error',
        // Out of order, and one problem twice (as a merged report or an older one may hold it).
        failures: [
          { ...server, operation: 'verifyReport', exchange: 40 },
          { ...server, exchange: 30, occurrences: 2 },
          { ...server, exchange: 20, occurrences: 1 },
        ],
      },
    ],
  });
  const expected = [
    'not_a_server_error · createEvaluation · server error 500 (×3)',
    'not_a_server_error · verifyReport · server error 500',
    'response_schema_conformance · getJob · 200 body breaks its schema',
    'error_code_documented · createEvaluation · key reused with another body answered 202',
  ];
  const summary = renderSummary(unordered);
  expect([...summary.matchAll(/^\d+\. \[\w+\] (.*)$/gm)].map((match) => match[1])).toEqual(expected);
  expect(summary).toMatch(/Failures: 4 distinct, from \d+ failed answers? \(the table's "failed"\):/);
  const html = renderHtml(unordered);
  expect(
    [...html.matchAll(/<summary><strong>(\w+)<\/strong> \(\w+\) · (\w+) · ([^<]*?)(?: ×(\d+))?<\/summary>/g)].map(
      ([, check, operation, title, times]) => `${check} · ${operation} · ${title}${times ? ` (×${times})` : ''}`,
    ),
  ).toEqual(expected);
  const xml = renderJunit(unordered);
  expect(xml).toMatch(/name="not_a_server_error"[\s\S]*?<failure message="2 distinct failure\(s\): server error 500"/);
  expect(xml).toMatch(/1\. createEvaluation: server error 500 \(×3\)[\s\S]*?2\. verifyReport: server error 500/);
  const json = JSON.parse(renderJson(unordered)) as ConformanceReport;
  const inJson = json.checks.find((check) => check.name === 'not_a_server_error')!.failures;
  expect(inJson.map((one) => [one.operation, one.exchange, one.occurrences])).toEqual([
    ['createEvaluation', 20, 3],
    ['verifyReport', 40, 1],
  ]);
});

it('counts the failures list and the table in one unit: the heading says the distinct failures and the failed answers the column adds up to', () => {
  const many = report({
    checks: [
      {
        ...report().checks[0]!,
        applied: 120,
        failedExchanges: 100,
        failures: [{ ...failure, check: 'idempotency_conflict', occurrences: 100 }],
      },
      {
        ...report().checks[0]!,
        name: 'not_a_server_error',
        applied: 90,
        failedExchanges: 62,
        failures: [
          { ...failure, check: 'not_a_server_error', title: 'server error 500', occurrences: 60 },
          { ...failure, check: 'not_a_server_error', operation: 'verifyReport', title: 'server error 500', occurrences: 2 },
        ],
      },
    ],
  });
  const summary = renderSummary(many);
  expect(summary).toMatch(/^check +kind +result +judged +failed$/m);
  expect(summary).toMatch(/^idempotency_conflict +required +FAIL +120 +100$/m);
  expect(summary).toMatch(/^not_a_server_error +required +FAIL +90 +62$/m);
  expect(summary).toContain('Failures: 3 distinct, from 162 failed answers (the table\'s "failed"):');
});
