/**
 * The acceptance of issue 27's Arazzo part, as users run it: `evidence-harness conformance
 * --workflows spec/workflows.arazzo.yaml` exits 0 against the mock and 1 against a server whose
 * replay makes a new job; Redocly's `respect` runs the same file and agrees; `redocly lint`
 * (Redocly's own Arazzo rules) finds the file valid.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { runCli } from '../conformance/cli-process.js';
import { type RunningFaultServer, startFaultServer } from '../fixtures/fault-zoo/fault-server.js';
import { replayNewJobHandler } from '../fixtures/fault-zoo/faults.js';
import { testTimeout } from '../support/time-limits.js';

const workflows = 'spec/workflows.arazzo.yaml';
const redocly = join(process.cwd(), 'node_modules', '.bin', 'redocly');
let mock: RunningMockServer;
let faulty: RunningFaultServer;

beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
  faulty = await startFaultServer(replayNewJobHandler());
});
afterAll(async () => {
  await mock.close();
  await faulty.close();
});

/** Runs Redocly's CLI (a devDependency) with telemetry and update checks off. */
function runRedocly(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(redocly, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const safety = setTimeout(() => child.kill('SIGKILL'), 110_000);
    child.once('close', (code) => {
      clearTimeout(safety);
      resolve({ code, output });
    });
  });
}

it(
  'conformance --workflows exits 0 against the mock',
  async () => {
    const run = await runCli(['conformance', '--base-url', mock.url, '--workflows', workflows, '--quiet']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/workflow_success_criteria\s+required\s+pass/);
  },
  testTimeout({ processes: 5 }),
);

it(
  'conformance --workflows exits 1 against a server whose replay makes a new job, naming the step',
  async () => {
    const folder = mkdtempSync(join(tmpdir(), 'eh-workflows-'));
    try {
      const junit = join(folder, 'workflows.xml');
      const run = await runCli([
        'conformance',
        '--base-url',
        faulty.url,
        '--workflows',
        workflows,
        '--quiet',
        '--report',
        `junit=${junit}`,
      ]);
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stdout).toContain('replay › replayCreate: $response.body#/jobId == $steps.create.outputs.jobId');
      expect(readFileSync(junit, 'utf8')).toMatch(
        /<testcase [^>]*name="workflow_success_criteria"[\s\S]*?<failure[^>]*replay › replayCreate/,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },
  testTimeout({ processes: 5 }),
);

it(
  'scrubs a secret input from the output and the cassette of a run, wherever the request carries it',
  async () => {
    const folder = mkdtempSync(join(tmpdir(), 'eh-workflows-'));
    try {
      const har = join(folder, 'run.har');
      const flows = join(folder, 'secret.arazzo.yaml');
      // The secret travels in a request body, where no header rule would hide it.
      writeFileSync(
        flows,
        `arazzo: 1.0.1
info: { title: secret, version: '1' }
sourceDescriptions: [{ name: evidence, url: ./openapi.yaml, type: openapi }]
workflows:
  - workflowId: verify
    inputs: { type: object, properties: { issuer: { type: string, format: password } } }
    steps:
      - stepId: verify
        operationId: verifyReport
        requestBody: { payload: { artifact: abc, expectedOperationId: op-1, expectedIssuer: $inputs.issuer } }
        successCriteria: [{ condition: $statusCode == 200 }]
`,
      );
      const secret = 'cassette-secret-value';
      const run = await runCli([
        'conformance',
        '--base-url',
        mock.url,
        '--workflows',
        flows,
        '--input',
        `issuer=${secret}`,
        '--record',
        har,
      ]);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const cassette = readFileSync(har, 'utf8');
      expect(cassette).toContain('/v0/verifications');
      expect(cassette + run.stdout + run.stderr).not.toContain(secret);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },
  testTimeout({ processes: 5 }),
);

it(
  'conformance --workflows exits 2 on a file that is not Arazzo, saying why',
  async () => {
    const run = await runCli(['conformance', '--base-url', mock.url, '--workflows', 'spec/openapi.yaml', '--quiet']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--workflows spec\/openapi\.yaml: not an Arazzo 1\.0 document/);
  },
  testTimeout({ processes: 5 }),
);

it(
  'redocly respect passes the shipped workflows against the mock',
  async () => {
    const run = await runRedocly(['respect', workflows, '--server', `evidence=${mock.url}`]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Workflows: 5 passed, 5 total/);
  },
  testTimeout({ processes: 5 }),
);

it(
  'redocly respect fails them against the server whose replay makes a new job',
  async () => {
    const run = await runRedocly(['respect', workflows, '--server', `evidence=${faulty.url}`]);
    expect(run.code, run.output).not.toBe(0);
    expect(run.output).toMatch(/Workflows: 4 passed, 1 failed, 5 total/);
  },
  testTimeout({ processes: 5 }),
);

it(
  'redocly lint finds the shipped workflow file valid Arazzo',
  async () => {
    const run = await runRedocly(['lint', workflows]);
    expect(run.code, run.output).toBe(0);
  },
  testTimeout({ processes: 5 }),
);
