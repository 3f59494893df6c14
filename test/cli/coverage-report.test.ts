/**
 * `evidence-harness mock --coverage-report`: when the built mock stops, it prints one screen of
 * coverage and findings, and writes the JSON and HTML reports; from a config file too. The HTML
 * shows hostile request paths as text, never as markup.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { coverageHtml, coverageSummary, parseCoverageReportOption } from '../../src/cli/coverage-report.js';
import { createMockEngine } from '../../src/engine/index.js';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';

const spawnCli = cliChildrenKilledAfterEach();

it('writes the JSON and HTML reports and prints a one-screen summary when the mock stops', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-coverage-'));
  const mock = spawnCli(
    ['mock', '--port', '0', '--coverage-report', 'json=out/coverage.json', '--coverage-report', 'html=out/coverage.html'],
    {
      cwd: folder,
    },
  );
  const [, url] = await mock.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  const created = await fetch(`${url}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': 'cli-cov' }));
  const { jobId } = await created.json();
  for (let poll = 0; poll < 3; poll += 1) await fetch(`${url}/v0/jobs/${jobId}`);
  await fetch(`${url}/v0/jobs/%3Cimg%20src%3Dx%3E`);
  mock.child.kill('SIGTERM');
  expect(await mock.exit).toBe(0);

  const report = JSON.parse(readFileSync(join(folder, 'out/coverage.json'), 'utf8'));
  expect(report.behaviours.find((behaviour: { id: string }) => behaviour.id === 'job COMPLETE')).toMatchObject({ covered: true });
  expect(report.clientFindings.map((finding: { rule: string }) => finding.rule)).toEqual(['poll_too_fast']);
  const html = readFileSync(join(folder, 'out/coverage.html'), 'utf8');
  expect(html).toContain(`${report.covered} of ${report.total} behaviours seen`);
  expect(html).toContain('<code>poll_too_fast</code>');

  const output = mock.stdout();
  expect(output).toMatch(new RegExp(`consumer coverage: ${report.covered} of ${report.total} behaviours seen`));
  expect(output).toMatch(/job states: +3 of 4 — missing: FAILED\n/);
  expect(output).toMatch(/client findings: 1\n {2}poll_too_fast \(\d+×\), e\.g\. GET \/v0\/jobs\//);
  expect(output).toContain(`coverage report written: ${join(folder, 'out/coverage.json')}`);
  const summary = output.slice(output.indexOf('consumer coverage:'), output.indexOf('coverage report written'));
  expect(summary.split('\n').length).toBeLessThan(25);
});

it('takes the reports from a config file, relative to the file, and leaves the summary out with --quiet', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-coverage-config-'));
  writeFileSync(
    join(folder, 'evidence-harness.config.json'),
    JSON.stringify({ mock: { port: 0, quiet: true, 'coverage-report': ['json=reports/c.json'] } }),
  );
  const mock = spawnCli(['mock'], { cwd: folder });
  const [, url] = await mock.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  await fetch(`${url}/health`);
  mock.child.kill('SIGINT');
  expect(await mock.exit).toBe(0);
  expect(JSON.parse(readFileSync(join(folder, 'reports/c.json'), 'utf8')).covered).toBe(1);
  expect(mock.stdout()).not.toContain('consumer coverage:');
  expect(mock.stdout()).toContain('coverage report written:');
});

it('refuses a --coverage-report that is not json=FILE or html=FILE with exit 2', async () => {
  const result = await runMain('mock', '--coverage-report', 'xml=out.xml');
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('--coverage-report takes json=FILE or html=FILE');
  expect(() => parseCoverageReportOption('json=')).toThrow(/json=FILE/);
});

it('escapes what clients sent in the HTML report, and the summary names what is missing', async () => {
  const engine = createMockEngine();
  const hostile = '/v0/jobs/%3Cscript%3Ealert(1)%3C%2Fscript%3E';
  for (let poll = 0; poll < 2; poll += 1) await engine.handle(new Request(`http://mock.test${hostile}`));
  await engine.handle(
    new Request('http://mock.test/v0/evaluations', { method: 'POST', headers: { 'content-type': 'text/<b>x</b>' }, body: 'x' }),
  );
  const html = coverageHtml(engine.control.coverage());
  expect(html).not.toMatch(/<script|<b>/);
  expect(html).toContain('text/&lt;b&gt;x&lt;/b&gt;');
  const summary = coverageSummary(engine.control.coverage());
  expect(summary).toMatch(/statuses: +2 of \d+ — missing: health 200, createEvaluation 202/);
  expect(summary).toContain('content_type_not_json (1×), e.g. POST /v0/evaluations → 415');
});
