/**
 * How the runner executes a workflow file: actions (retry with retryAfter and the server's
 * Retry-After, goto, end), outputs, dependsOn and nested workflows, inputs, and its bounds —
 * a goto loop, a workflow calling itself, --max-requests — each a clear failure or an
 * incomplete run, never a hang; and hostile files refused before anything is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceReport } from '../../src/conformance/report/report.js';
import { type ConformanceOptions, runConformance } from '../../src/conformance/run.js';
import { parseWorkflowDocument, WorkflowDocumentError } from '../../src/conformance/workflows/index.js';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { startFaultServer } from '../fixtures/fault-zoo/fault-server.js';

let mock: RunningMockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
});
afterAll(async () => {
  await mock.close();
});

const header = `arazzo: 1.0.1
info: { title: test, version: '1' }
sourceDescriptions: [{ name: evidence, url: ./openapi.yaml, type: openapi }]
`;

const evaluation = `{ profile: svc.payment-conformance/0.1-draft, operationId: op-1, instructionDigest: ${'a'.repeat(64)}, policyDigest: ${'b'.repeat(64)}, evidence: [{ id: ev-1, kind: issuer_assertion }] }`;

function createStep(key: string, extra = ''): string {
  return `      - stepId: create
        operationId: createEvaluation
        parameters: [{ name: Idempotency-Key, in: header, value: ${key} }]
        requestBody: { contentType: application/json, payload: ${evaluation} }
        successCriteria: [{ condition: $statusCode == 202 }]
        outputs: { jobId: $response.body#/jobId }
${extra}`;
}

async function run(yaml: string, options: Partial<ConformanceOptions> = {}, baseUrl = mock.url): Promise<ConformanceReport> {
  return runConformance({ baseUrl, seed: 1, workflows: { file: parseWorkflowDocument(header + yaml, 'test.arazzo.yaml') }, ...options });
}

function failuresOf(report: ConformanceReport) {
  return report.checks.flatMap((check) =>
    check.failures.map((failure) => ({ check: check.name, title: failure.title, received: failure.received })),
  );
}

describe('actions', () => {
  it('retries a step until its criteria hold, and ends passed', async () => {
    const report = await run(`workflows:
  - workflowId: poll
    steps:
${createStep('runs-retry-1')}      - stepId: wait
        operationId: getJob
        parameters: [{ name: jobId, in: path, value: $steps.create.outputs.jobId }]
        successCriteria: [{ condition: "$response.body#/status == 'COMPLETE' || $response.body#/status == 'FAILED'" }]
        onFailure: [{ name: again, type: retry, retryAfter: 0.01, retryLimit: 20 }]
`);
    expect(failuresOf(report)).toEqual([]);
    expect(report.verdict).toBe('passed');
    expect(report.requests).toBeGreaterThan(3);
  });

  it('fails the step once retryLimit retries are spent, saying so', async () => {
    const report = await run(`workflows:
  - workflowId: never
    steps:
${createStep('runs-retry-2')}      - stepId: wait
        operationId: getJob
        parameters: [{ name: jobId, in: path, value: $steps.create.outputs.jobId }]
        successCriteria: [{ condition: "$response.body#/status == 'NEVER'" }]
        onFailure: [{ name: again, type: retry, retryAfter: 0, retryLimit: 2 }]
`);
    expect(report.exitCode).toBe(1);
    const [failure] = failuresOf(report);
    expect(failure).toMatchObject({ check: 'workflow_success_criteria', title: "never › wait: $response.body#/status == 'NEVER'" });
    // create, then the first attempt and two retries.
    expect(report.requests).toBe(1 + 1 + 3);
  });

  it("waits as the server's Retry-After asks when it is longer than retryAfter", async () => {
    let reads = 0;
    const sentAt: number[] = [];
    const server = await startFaultServer(async (request, engine) => {
      const answer = await engine.handle(request);
      if (request.method !== 'GET' || !new URL(request.url).pathname.startsWith('/v0/jobs/')) return answer;
      reads += 1;
      const headers = new Headers(answer.headers);
      headers.set('retry-after', '1');
      const body = await answer.text();
      // The first read still says QUEUED, with a Retry-After of 1 s.
      return new Response(reads === 1 ? body.replace(/"status":"[A-Z]+"/, '"status":"QUEUED"') : body, { status: answer.status, headers });
    });
    try {
      const report = await run(
        `workflows:
  - workflowId: patient
    steps:
${createStep('runs-retry-after')}      - stepId: wait
        operationId: getJob
        parameters: [{ name: jobId, in: path, value: $steps.create.outputs.jobId }]
        successCriteria: [{ condition: "$response.body#/status != 'QUEUED'" }]
        onFailure: [{ name: again, type: retry, retryAfter: 0.01, retryLimit: 3 }]
`,
        {
          onExchange: (exchange) =>
            exchange.intent.kind === 'workflow-step' && exchange.intent.step === 'wait' && sentAt.push(Date.now() - exchange.durationMs),
        },
        server.url,
      );
      expect(failuresOf(report)).toEqual([]);
      expect(sentAt).toHaveLength(2);
      expect(sentAt[1]! - sentAt[0]!).toBeGreaterThanOrEqual(950);
    } finally {
      await server.close();
    }
  });

  it('follows goto and end actions, and evaluates outputs', async () => {
    const report = await run(`workflows:
  - workflowId: branches
    steps:
${createStep('runs-goto-1', `        onSuccess: [{ name: skip, type: goto, stepId: read, criteria: [{ condition: $statusCode == 202 }] }]\n`)}      - stepId: never
        operationId: getJob
        parameters: [{ name: jobId, in: path, value: nothing-here }]
        successCriteria: [{ condition: $statusCode == 999 }]
      - stepId: read
        operationId: getJob
        parameters: [{ name: jobId, in: path, value: $steps.create.outputs.jobId }]
        successCriteria: [{ condition: $statusCode == 200 }]
        outputs: { jobId: $response.body#/jobId }
        onSuccess: [{ name: done, type: end }]
      - stepId: afterEnd
        operationId: getJob
        parameters: [{ name: jobId, in: path, value: nothing-here }]
        successCriteria: [{ condition: $statusCode == 999 }]
    outputs: { jobId: $steps.read.outputs.jobId }
`);
    expect(failuresOf(report)).toEqual([]);
    expect(report.requests).toBe(1 + 2);
  });

  it('goes to another workflow on failure, which decides the outcome; $url and $method read the request as sent', async () => {
    const report = await run(`workflows:
  - workflowId: first
    steps:
      - stepId: ping
        operationId: health
        successCriteria: [{ condition: $statusCode == 500 }]
        onFailure: [{ name: recover, type: goto, workflowId: recovery }]
  - workflowId: recovery
    steps:
      - stepId: ping
        operationId: health
        successCriteria: [{ condition: "$method == 'GET' && $url == '${mock.url}/health'" }]
`);
    expect(failuresOf(report)).toEqual([]);
    // The preflight, first's ping, recovery's ping from the goto (recovery has run: not again).
    expect(report.requests).toBe(3);
  });

  it('fails a goto loop after a bounded number of step runs, or when --max-requests runs out', async () => {
    const loop = `workflows:
  - workflowId: loop
    steps:
      - stepId: ping
        operationId: health
        successCriteria: [{ condition: $statusCode == 200 }]
        onSuccess: [{ name: again, type: goto, stepId: ping }]
`;
    const bounded = await run(loop, { maxRequests: 50 });
    expect(bounded.verdict).toBe('incomplete');
    expect(bounded.exitCode).toBe(3);
    expect(bounded.requests).toBe(50);
    const long = await run(loop, { maxRequests: 5000 });
    expect(long.exitCode).toBe(1);
    expect(failuresOf(long)).toEqual([expect.objectContaining({ title: 'loop › ping: more than 1000 step runs' })]);
  });
});

describe('workflows, inputs and outputs', () => {
  it('runs dependsOn first, reads $workflows outputs, and calls a workflow from a step', async () => {
    const report = await run(`workflows:
  - workflowId: make
    inputs: { type: object, properties: { key: { type: string, default: runs-depends-1 } } }
    steps:
${createStep('$inputs.key')}    outputs: { jobId: $steps.create.outputs.jobId }
  - workflowId: read
    dependsOn: [make]
    steps:
      - stepId: read
        operationId: getJob
        parameters: [{ name: jobId, in: path, value: $workflows.make.outputs.jobId }]
        successCriteria: [{ condition: $statusCode == 200 }]
      - stepId: makeAnother
        workflowId: make
        parameters: [{ name: key, value: runs-depends-2 }]
        outputs: { jobId: $outputs.jobId }
      - stepId: readAnother
        operationId: getJob
        parameters: [{ name: jobId, in: path, value: $steps.makeAnother.outputs.jobId }]
        successCriteria: [{ condition: $response.body#/jobId == $steps.makeAnother.outputs.jobId }]
`);
    expect(failuresOf(report)).toEqual([]);
    expect(report.requests).toBe(1 + 4);
  });

  it('fails a workflow that calls itself at a bounded depth', async () => {
    const report = await run(`workflows:
  - workflowId: again
    steps:
      - stepId: ping
        operationId: health
      - stepId: self
        workflowId: again
`);
    expect(report.exitCode).toBe(1);
    expect(failuresOf(report)[0]!.received).toMatch(/nest more than 8 deep/);
  });

  it('fails a step whose output is not in the answer, naming it', async () => {
    const report = await run(`workflows:
  - workflowId: outputs
    steps:
      - stepId: ping
        operationId: health
        outputs: { jobId: $response.body#/jobId }
`);
    expect(failuresOf(report)).toEqual([expect.objectContaining({ title: 'outputs › ping: output jobId not found' })]);
  });

  it('takes --input values over defaults, typed by the schema, and refuses unknown inputs', async () => {
    const yaml = `workflows:
  - workflowId: typed
    inputs: { type: object, properties: { status: { type: integer, default: 999 } }, required: [status] }
    steps:
      - stepId: ping
        operationId: health
        successCriteria: [{ condition: $statusCode == $inputs.status }]
`;
    expect((await run(yaml)).exitCode).toBe(1);
    const document = parseWorkflowDocument(header + yaml, 'typed');
    const passed = await runConformance({ baseUrl: mock.url, workflows: { file: document, inputs: { status: '200' } } });
    expect(passed.exitCode).toBe(0);
    await expect(runConformance({ baseUrl: mock.url, workflows: { file: document, inputs: { stauts: '200' } } })).rejects.toThrow(
      /no workflow has an input 'stauts'/,
    );
    await expect(runConformance({ baseUrl: mock.url, workflows: { file: document, inputs: { status: 'abc' } } })).rejects.toThrow(
      /must be integer/,
    );
  });

  it('sends the second caller from an input, and scrubs inputs marked format: password', async () => {
    const report = await runConformance({
      baseUrl: mock.url,
      headers: { Authorization: 'Bearer first-caller-secret' },
      workflows: {
        file: 'spec/workflows.arazzo.yaml',
        only: ['anotherCallersJob'],
        inputs: { secondCallerAuthorization: 'Bearer second-caller-secret' },
      },
    });
    expect(report.exitCode).toBe(0);
    expect(JSON.stringify(report)).not.toContain('second-caller-secret');
    expect(JSON.stringify(report)).not.toContain('first-caller-secret');
  });
});

it("replaces the caller's header by a step's own of the same name, whatever its case", async () => {
  const seen: (string | null)[] = [];
  const server = await startFaultServer(async (request, engine) => {
    if (new URL(request.url).pathname === '/health' && request.headers.has('x-step')) seen.push(request.headers.get('authorization'));
    return engine.handle(request);
  });
  try {
    const report = await run(
      `workflows:
  - workflowId: other
    steps:
      - stepId: ping
        operationId: health
        parameters: [{ name: authorization, in: header, value: Bearer step-own-token }, { name: X-Step, in: header, value: '1' }]
`,
      // A step setting credentials goes as the second caller: its header must replace caller 2's.
      { headers: { Authorization: 'Bearer first-caller-token' }, secondCallerHeaders: { Authorization: 'Bearer second-caller-token' } },
      server.url,
    );
    expect(report.exitCode).toBe(0);
    expect(seen).toEqual(['Bearer step-own-token']);
  } finally {
    await server.close();
  }
});

describe('hostile workflow files', () => {
  const refused = (text: string) => () => parseWorkflowDocument(text, 'hostile.yaml');

  it('refuses a billion-laughs document, deep nesting and huge files', () => {
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let level = 1; level < 10; level += 1)
      laughs.push(
        `${String.fromCharCode(97 + level)}: &${String.fromCharCode(97 + level)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + level)}`)
          .join(',')}]`,
      );
    expect(refused(laughs.join('\n'))).toThrow(WorkflowDocumentError);
    expect(refused(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toThrow(/nests more than 256|nested|not valid YAML/);
    expect(refused(`x: "${'a'.repeat(3 * 1024 * 1024)}"`)).toThrow(/larger than/);
    // An alias inside its own anchor: a cycle, stopped by the value count.
    expect(refused('a: &a [1, *a]')).toThrow(/nested more than 64 levels|more than 200000 values|not valid YAML/);
  });

  it('refuses a document that is not Arazzo 1.0, naming the field', () => {
    expect(refused(`${header}workflows: [{ workflowId: w, steps: [{ stepId: s, operationId: health, sucessCriteria: [] }] }]`)).toThrow(
      /workflows\[0\]\.steps\[0\]\.sucessCriteria: unknown field/,
    );
    expect(refused(`arazzo: 2.0.0\ninfo: { title: t, version: '1' }`)).toThrow(/Arazzo 1.0 version/);
    expect(
      refused(
        `${header}workflows: [{ workflowId: w, steps: [{ stepId: s, operationId: health, onSuccess: [{ name: g, type: goto, stepId: nowhere }] }] }]`,
      ),
    ).toThrow(/goto step 'nowhere'/);
  });

  it('refuses an output that is not a runtime expression', async () => {
    const file = parseWorkflowDocument(
      `${header}workflows: [{ workflowId: w, steps: [{ stepId: s, operationId: health, outputs: { status: 'response.body#/status' } }] }]`,
      'bad-output',
    );
    await expect(runConformance({ baseUrl: mock.url, workflows: { file } })).rejects.toThrow(
      /step 's' output 'status': .* is not a runtime expression/,
    );
  });

  it('refuses a step naming an operation the spec does not have', async () => {
    const file = parseWorkflowDocument(
      `${header}workflows: [{ workflowId: w, steps: [{ stepId: s, operationId: deleteJob }] }]`,
      'unknown-op',
    );
    await expect(runConformance({ baseUrl: mock.url, workflows: { file } })).rejects.toThrow(
      /step 's': the spec .* has no operation deleteJob/,
    );
  });

  it('stops before sending anything on a bad condition', async () => {
    const sent: unknown[] = [];
    await expect(
      runConformance({
        baseUrl: mock.url,
        onExchange: (exchange) => sent.push(exchange),
        workflows: {
          file: parseWorkflowDocument(
            `${header}workflows: [{ workflowId: w, steps: [{ stepId: s, operationId: health, successCriteria: [{ condition: '$statusCode = 200' }] }] }]`,
            'bad',
          ),
        },
      }),
    ).rejects.toThrow(WorkflowDocumentError);
    expect(sent).toEqual([]);
  });
});
