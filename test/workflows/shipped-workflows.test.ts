/**
 * The shipped spec/workflows.arazzo.yaml, run by the conformance runner (--workflows): it passes
 * against the mock, and a server whose replay makes a new job fails it, naming the workflow and
 * step, with the contract's response checks judging every answer of the steps.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { parseWorkflowDocument } from '../../src/conformance/workflows/index.js';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { startFaultServer } from '../fixtures/fault-zoo/fault-server.js';
import { replayNewJobHandler } from '../fixtures/fault-zoo/faults.js';

const workflows = { file: 'spec/workflows.arazzo.yaml' };
let mock: RunningMockServer;

beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
});
afterAll(async () => {
  await mock.close();
});

it('passes against the mock: every workflow, and the response checks on every step', async () => {
  const report = await runConformance({ baseUrl: mock.url, workflows, seed: 1 });
  const failures = report.checks.flatMap((check) => check.failures);
  expect(failures, JSON.stringify(failures, null, 2)).toEqual([]);
  expect(
    report.verdict,
    JSON.stringify(
      report.checks.filter((check) => check.status !== 'passed'),
      null,
      2,
    ),
  ).toBe('passed');
  expect(report.exitCode).toBe(0);
  const criteria = report.checks.find((check) => check.name === 'workflow_success_criteria')!;
  // create+poll(s), replay 2, conflict 2, another caller 3, verify 1
  expect(criteria.applied).toBeGreaterThanOrEqual(10);
  const schema = report.checks.find((check) => check.name === 'response_schema_conformance')!;
  expect(schema.status).toBe('passed');
  // Workflows alone: no probe of the default run was sent.
  expect(report.checks.map((check) => check.name)).not.toContain('idempotent_replay');
});

it('fails against a server whose replay makes a new job, naming the workflow and step', async () => {
  const server = await startFaultServer(replayNewJobHandler());
  try {
    const report = await runConformance({ baseUrl: server.url, workflows, seed: 1 });
    expect(report.exitCode).toBe(1);
    const failed = report.checks.filter((check) => check.status === 'failed');
    expect(failed.map((check) => check.name)).toEqual(['workflow_success_criteria']);
    const failure = failed[0]!.failures[0]!;
    expect(failure.title).toBe('replay › replayCreate: $response.body#/jobId == $steps.create.outputs.jobId');
    expect(failure.operation).toBe('createEvaluation');
    expect(failure.received).toMatch(/\$response\.body#\/jobId = "job_[^"]+"; \$steps\.create\.outputs\.jobId = "job_/);
    expect(failure.curl).toMatch(/^curl -i -X POST 'http:\/\/127\.0\.0\.1:\d+\/v0\/evaluations'/);
    expect(failure.sequence).toHaveLength(2);
  } finally {
    await server.close();
  }
});

it("runs docs/workflows.md's own workflow as written, and passes against the mock", async () => {
  const example = /```yaml\n(arazzo: [\s\S]*?)```/.exec(readFileSync('docs/workflows.md', 'utf8'))?.[1];
  expect(example).toBeDefined();
  const report = await runConformance({ baseUrl: mock.url, workflows: { file: parseWorkflowDocument(example!, 'docs/workflows.md') } });
  expect(report.checks.flatMap((check) => check.failures)).toEqual([]);
  expect(report.exitCode).toBe(0);
});

it('createAndWait reads a rate-limited job again after the Retry-After the server asks for', async () => {
  let reads = 0;
  const server = await startFaultServer(async (request, engine) => {
    const isRead = request.method === 'GET' && new URL(request.url).pathname.startsWith('/v0/jobs/');
    if (isRead) reads += 1;
    if (isRead && reads <= 2)
      return new Response(JSON.stringify({ code: 'rate_limited', message: 'Too many requests.' }), {
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '1' },
      });
    return engine.handle(request);
  });
  try {
    const started = Date.now();
    const report = await runConformance({
      baseUrl: server.url,
      workflows: { file: 'spec/workflows.arazzo.yaml', only: ['createAndWait'] },
    });
    expect(report.checks.find((check) => check.name === 'workflow_success_criteria')).toMatchObject({ status: 'passed' });
    // The transport's own retry of the first 429 waits 1 s, the workflow's retry of the second 1 s more.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(reads).toBeGreaterThan(2);
  } finally {
    await server.close();
  }
});
