/**
 * `conformance --pact FILE`: a hand-written V4 pact of a web app (a create with matching rules, a
 * running and a completed job read through ProviderState generators, a 409 conflict, an unknown
 * job) verified against a fresh mock (exit 0), against a server that answers a create 200 (exit
 * 1, naming the interaction), and with states the API cannot reach (exit 3, saying why).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { type RunningFaultServer, startFaultServer } from '../fixtures/fault-zoo/fault-server.js';
import { runMain } from '../support/run-main.js';
import { inTime } from '../support/time-limits.js';

const fixture = new URL('../fixtures/pact/web-app-evidence-service.json', import.meta.url).pathname;

function pactWith(change: (pact: { interactions: Record<string, unknown>[] }) => void): string {
  const pact = JSON.parse(readFileSync(fixture, 'utf8'));
  change(pact);
  const file = join(mkdtempSync(join(tmpdir(), 'eh-pact-')), 'pact.json');
  writeFileSync(file, JSON.stringify(pact));
  return file;
}

let mock: RunningMockServer;
/** Answers a create 200 instead of 202, as a provider that "succeeds" synchronously would. */
let createAnswers200: RunningFaultServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
  createAnswers200 = await startFaultServer(async (request, engine) => {
    const answer = await engine.handle(request);
    if (request.method !== 'POST' || new URL(request.url).pathname !== '/v0/evaluations' || answer.status !== 202) return answer;
    return new Response(await answer.text(), { status: 200, headers: answer.headers });
  });
});
afterAll(async () => {
  await mock.close();
  await createAnswers200.close();
});

describe('against a fresh mock', () => {
  it('passes: every interaction matches, its states set up through the API, and the response checks pass', async () => {
    const report = await runConformance({ baseUrl: mock.url, pact: fixture, seed: 1 });
    const summary = JSON.stringify(
      report.checks.filter((check) => check.status !== 'passed' && !check.leftOut),
      null,
      2,
    );
    expect(report.verdict, summary).toBe('passed');
    expect(report.exitCode).toBe(0);
    const pactCheck = report.checks.find((check) => check.name === 'pact_interaction_matches')!;
    expect(pactCheck).toMatchObject({ status: 'passed', severity: 'required', applied: 5 });
    // The runner's own response checks judged the interactions' answers too.
    expect(report.checks.find((check) => check.name === 'response_schema_conformance')).toMatchObject({ status: 'passed' });
    expect(report.checks.find((check) => check.name === 'error_body')).toMatchObject({ status: 'passed' });
    // No probe of the default run was sent: only the pact's interactions and their states.
    expect(report.checks.map((check) => check.name)).not.toContain('idempotency_conflict');
    expect(report.settings.pact).toMatchObject({ consumer: 'web-app', provider: 'evidence-service', specification: 'V4', interactions: 5 });
  });

  it('exits 0 from the command line and writes the reports', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'eh-pact-cli-'));
    const json = join(folder, 'report.json');
    const junit = join(folder, 'junit.xml');
    const html = join(folder, 'report.html');
    const result = await runMain(
      'conformance',
      '--base-url',
      mock.url,
      '--pact',
      fixture,
      '--quiet',
      '--report',
      `json=${json}`,
      '--report',
      `junit=${junit}`,
      '--report',
      `html=${html}`,
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('pact_interaction_matches');
    expect(JSON.parse(readFileSync(json, 'utf8')).verdict).toBe('passed');
    expect(readFileSync(junit, 'utf8')).toContain('pact_interaction_matches');
    expect(readFileSync(html, 'utf8')).toContain('pact_interaction_matches');
  });
});

describe('against a server that answers a create 200', () => {
  it('fails the create interaction: exit 1, naming it, the path, expected and received, with a curl line', async () => {
    const report = await runConformance({ baseUrl: createAnswers200.url, pact: fixture, seed: 1 });
    expect(report.verdict).toBe('failed');
    expect(report.exitCode).toBe(1);
    const failures = report.checks.find((check) => check.name === 'pact_interaction_matches')!.failures;
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      check: 'pact_interaction_matches',
      operation: 'createEvaluation',
      title: "interaction 'create an evaluation job': status",
      expected: 'status: 202',
      received: 'status: 200',
    });
    expect(failures[0]!.curl).toMatch(/^curl .*-X POST .*\/v0\/evaluations/s);
    expect(failures[0]!.input).toContain("pact interaction 'create an evaluation job'");
    // The runner's own checks see it too: 200 is not documented for createEvaluation.
    expect(report.checks.find((check) => check.name === 'status_code_documented')!.status).toBe('failed');
  });

  it('exits 1 from the command line, the summary naming the interaction; replay sends it back to the pact', async () => {
    const json = join(mkdtempSync(join(tmpdir(), 'eh-pact-replay-')), 'report.json');
    const result = await runMain(
      'conformance',
      '--base-url',
      createAnswers200.url,
      '--pact',
      fixture,
      '--quiet',
      '--report',
      `json=${json}`,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("interaction 'create an evaluation job': status");
    const replay = await runMain('conformance', 'replay', json);
    expect(replay.stdout).toMatch(/pact_interaction_matches .*\n.*not replayed.*rerunning the pact \(--pact FILE\)/);
  });
});

describe('bounded as any run', () => {
  it('sends no more than --max-requests, and what it could not send makes the run incomplete', async () => {
    const report = await runConformance({ baseUrl: mock.url, pact: fixture, seed: 1, maxRequests: 3 });
    expect(report.requests).toBeLessThanOrEqual(3);
    expect(report.verdict).toBe('incomplete');
    expect(report.incomplete.join('\n')).toMatch(/pact_interaction_matches \(required\)/);
    expect(report.notes.join('\n')).toMatch(/--max-requests 3 was reached/);
  });
});

describe('provider states', () => {
  it('does not send an interaction whose state it cannot set up: incomplete (exit 3), saying which state and why', async () => {
    const file = pactWith((pact) => {
      pact.interactions[4]!.providerStates = [{ name: 'the evidence store is down' }];
    });
    const report = await runConformance({ baseUrl: mock.url, pact: file, seed: 1 });
    expect(report.verdict).toBe('incomplete');
    expect(report.exitCode).toBe(3);
    expect(report.incomplete.join('\n')).toMatch(/pact_interaction_matches \(required\) ran only in part/);
    expect(report.notes.join('\n')).toMatch(/'the evidence store is down' cannot be set up through the API; give --provider-states-url/);
  });

  it('says a job state the API never reaches is not reachable, and does not send the interaction', async () => {
    const file = pactWith((pact) => {
      pact.interactions[2]!.providerStates = [{ name: 'a job in state FAILED', params: { status: 'FAILED' } }];
    });
    const report = await runConformance({ baseUrl: mock.url, pact: file, seed: 1, jobTimeoutMs: inTime() });
    expect(report.verdict).toBe('incomplete');
    expect(report.notes.join('\n')).toMatch(/state not reachable: the job went QUEUED → RUNNING → COMPLETE and never was FAILED/);
  });
});

describe('any consumer, any version', () => {
  it('reports a pending interaction (V4) on the advisory check: the run passes, and fails with --strict', async () => {
    const file = pactWith((pact) => {
      const unknown = pact.interactions[4] as { pending?: boolean; response: { status: number } };
      unknown.pending = true;
      unknown.response.status = 410;
    });
    const report = await runConformance({ baseUrl: mock.url, pact: file, seed: 1 });
    expect(report.verdict).toBe('passed');
    const pending = report.checks.find((check) => check.name === 'pact_pending_interaction_matches')!;
    expect(pending).toMatchObject({ status: 'failed', severity: 'advisory' });
    expect(pending.failures[0]).toMatchObject({ expected: 'status: 410', received: 'status: 404' });
    expect((await runConformance({ baseUrl: mock.url, pact: file, seed: 1, strict: true })).verdict).toBe('failed');
  });

  it('verifies a V3 pact (providerStates, plain bodies, string headers) and a V2 pact (flat rules)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'eh-pact-versions-'));
    const v3 = join(folder, 'v3.json');
    writeFileSync(
      v3,
      JSON.stringify({
        consumer: { name: 'cli' },
        provider: { name: 'evidence-service' },
        interactions: [
          {
            description: 'read an unknown job',
            providerStates: [{ name: 'no job with this id', params: { jobId: 'job-none' } }],
            request: {
              method: 'GET',
              path: '/v0/jobs/job-example',
              // biome-ignore lint/suspicious/noTemplateCurlyInString: Pact's own expression syntax
              generators: { path: { type: 'ProviderState', expression: '/v0/jobs/${jobId}' } },
            },
            response: {
              status: 404,
              headers: { 'Content-Type': 'application/json' },
              body: { code: 'job_not_found', message: 'x' },
              matchingRules: {
                body: { '$.message': { matchers: [{ match: 'type' }] }, '$.code': { matchers: [{ match: 'regex', regex: '^job_' }] } },
              },
            },
          },
        ],
        metadata: { pactSpecification: { version: '3.0.0' } },
      }),
    );
    const v2 = join(folder, 'v2.json');
    writeFileSync(
      v2,
      JSON.stringify({
        consumer: { name: 'old-cli' },
        provider: { name: 'evidence-service' },
        interactions: [
          {
            description: 'health',
            request: { method: 'GET', path: '/health' },
            response: { status: 200, body: { status: 'ok' }, matchingRules: { '$.body.status': { match: 'type' } } },
          },
        ],
        metadata: { pactSpecification: { version: '2.0.0' } },
      }),
    );
    for (const file of [v3, v2]) {
      const report = await runConformance({ baseUrl: mock.url, pact: file, seed: 1 });
      expect(report.verdict, `${file}: ${JSON.stringify(report.checks.filter((check) => check.status === 'failed'))}`).toBe('passed');
    }
  });

  it('lists interactions that are not HTTP instead of verifying them', async () => {
    const file = pactWith((pact) => {
      pact.interactions.push({ type: 'Asynchronous/Messages', description: 'a job finished event', contents: {} });
    });
    const report = await runConformance({ baseUrl: mock.url, pact: file, seed: 1 });
    expect(report.verdict).toBe('passed');
    expect(report.notes.join('\n')).toMatch(/not verified: interaction 6 'a job finished event': of type Asynchronous\/Messages/);
  });
});
