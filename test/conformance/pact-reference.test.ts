/**
 * A pact written by Pact's reference implementation (pact-js' PactV4 over pact-reference, a
 * development dependency only) is read and verified by the runner's own matcher: what pact-js
 * writes (its matching rules, generators, provider states and body form) is what the runner
 * reads. Its consumer tests run against Pact's mock server, then the pact against a fresh mock.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Matchers, PactV4 } from '@pact-foundation/pact';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { type RunningFaultServer, startFaultServer } from '../fixtures/fault-zoo/fault-server.js';

const { eachLike, fromProviderState, includes, like, regex, string, uuid } = Matchers;
const dir = mkdtempSync(join(tmpdir(), 'eh-pact-js-'));
const fixture = JSON.parse(readFileSync(new URL('../fixtures/pact/web-app-evidence-service.json', import.meta.url), 'utf8'));
const createBody = fixture.interactions[0].request.body.content;

let mock: RunningMockServer;
/** Reads every job as FAILED with no evaluation. */
let failsJobs: RunningFaultServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
  failsJobs = await startFaultServer(async (request, engine) => {
    const answer = await engine.handle(request);
    if (request.method !== 'GET' || !new URL(request.url).pathname.startsWith('/v0/jobs/') || answer.status !== 200) return answer;
    const job = (await answer.json()) as { jobId: string };
    return Response.json({ jobId: job.jobId, status: 'FAILED' }, { status: 200 });
  });
});
afterAll(async () => {
  await mock.close();
  await failsJobs.close();
});

/** Writes the pact: each interaction's consumer test calls Pact's mock server as a client would. */
async function writePact(): Promise<string> {
  const pact = new PactV4({ consumer: 'pact-js-app', provider: 'evidence-service', dir, logLevel: 'error' });
  await pact
    .addInteraction()
    .uponReceiving('create an evaluation')
    .withRequest('POST', '/v0/evaluations', (request) =>
      request.headers({ 'Content-Type': 'application/json', 'Idempotency-Key': uuid('5f3c1a2e-8d4b-4c6a-9e7f-0a1b2c3d4e5f') }).jsonBody({
        ...createBody,
        evidence: eachLike(createBody.evidence[1]),
      }),
    )
    .willRespondWith(202, (response) =>
      response
        .headers({ 'Content-Type': regex('application/json.*', 'application/json') })
        .jsonBody({ jobId: string('job-7f3c2a'), status: regex('^(QUEUED|RUNNING)$', 'QUEUED') }),
    )
    .executeTest(async (server) => {
      const answer = await fetch(`${server.url}/v0/evaluations`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': '5f3c1a2e-8d4b-4c6a-9e7f-0a1b2c3d4e5f' },
        body: JSON.stringify({ ...createBody, evidence: [createBody.evidence[1]] }),
      });
      expect(answer.status).toBe(202);
    });
  await pact
    .addInteraction()
    .given('a job in state COMPLETE', { status: 'COMPLETE' })
    .uponReceiving('read a completed job')
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Pact's own expression syntax
    .withRequest('GET', fromProviderState('/v0/jobs/${jobId}', '/v0/jobs/job-7f3c2a'))
    .willRespondWith(200, (response) =>
      response.jsonBody({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Pact's own expression syntax
        jobId: fromProviderState('${jobId}', 'job-7f3c2a'),
        status: 'COMPLETE',
        evaluation: regex('^(PASS|FAIL|INDETERMINATE)$', 'PASS'),
      }),
    )
    .executeTest(async (server) => {
      expect((await fetch(`${server.url}/v0/jobs/job-7f3c2a`)).status).toBe(200);
    });
  await pact
    .addInteraction()
    .given('no job with this id')
    .uponReceiving('read a job that does not exist')
    .withRequest('GET', '/v0/jobs/job-none')
    .willRespondWith(404, (response) => response.jsonBody(like({ code: 'job_not_found', message: 'No job with this jobId.' })))
    .executeTest(async (server) => {
      expect((await fetch(`${server.url}/v0/jobs/job-none`)).status).toBe(404);
    });
  await pact
    .addInteraction()
    .uponReceiving('ask for health')
    .withRequest('GET', '/health')
    .willRespondWith(200, (response) => response.jsonBody({ status: includes('o') }))
    .executeTest(async (server) => {
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    });
  const written = readdirSync(dir).find((name) => name.endsWith('.json'));
  return join(dir, written!);
}

it('verifies a pact written by pact-js (pact-reference) against a fresh mock', async () => {
  const file = await writePact();
  const written = JSON.parse(readFileSync(file, 'utf8'));
  expect(written.metadata.pactSpecification.version).toBe('4.0');
  const report = await runConformance({ baseUrl: mock.url, pact: file, seed: 1 });
  const shown = JSON.stringify(
    report.checks.filter((check) => check.status === 'failed' || (check.status === 'skipped' && !check.leftOut)),
    null,
    2,
  );
  expect(report.verdict, shown).toBe('passed');
  expect(report.checks.find((check) => check.name === 'pact_interaction_matches')).toMatchObject({ status: 'passed', applied: 4 });
});

it('does not pass it against a provider whose jobs never complete, naming the state it could not reach', async () => {
  const file = readdirSync(dir).find((name) => name.endsWith('.json'));
  const report = await runConformance({ baseUrl: failsJobs.url, pact: join(dir, file!), seed: 1 });
  // The completed-job read cannot be set up (its job goes FAILED): not sent, so not passed.
  expect(report.verdict).toBe('incomplete');
  expect(report.notes.join('\n')).toMatch(
    /not sent: pact interaction 'read a completed job': state not reachable: the job went QUEUED → FAILED and never was COMPLETE/,
  );
});
