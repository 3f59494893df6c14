/**
 * The MCP server (src/mcp) as an agent's client sees it: the SDK's own Client, over the SDK's
 * in-memory transport pair, against a running mock (a node:http server on 127.0.0.1:0 with a
 * control token). Every tool is called; hostile arguments answer an MCP error and the server
 * keeps answering; no credential comes back in any result.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Scrubber } from '../../src/contract/secrets.js';
import { boundedResult, maxResultChars } from '../../src/mcp/bounds.js';
import { createEvidenceMcpServer, type EvidenceMcp } from '../../src/mcp/server.js';
import { bundledSpecPath } from '../../src/openapi/package-root.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { evaluationRequest, jsonPost, newKey } from '../support/fixtures.js';

const token = 'control-token-7f3c2a9b1d';
const bearer = 'Bearer sk-live-a1b2c3d4e5f6a7b8';
let mock: RunningMockServer;
let mcp: EvidenceMcp;
let client: Client;
let strict: { mcp: EvidenceMcp; client: Client };

async function connect(options: { loopback: boolean }): Promise<{ mcp: EvidenceMcp; client: Client }> {
  const server = createEvidenceMcpServer({
    mockUrl: mock.url,
    controlToken: token,
    access: { projectRoot: process.cwd(), anyPath: false, addresses: { allowLoopback: options.loopback, allowPrivate: false } },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const connected = new Client({ name: 'test-agent', version: '1.0.0' });
  await Promise.all([server.server.connect(serverSide), connected.connect(clientSide)]);
  return { mcp: server, client: connected };
}

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };

async function call(name: string, args: Record<string, unknown> = {}, on: Client = client): Promise<ToolResult> {
  return (await on.callTool({ name, arguments: args })) as ToolResult;
}

/** A tool's refusal, whichever way the SDK says it: a tool error result or a JSON-RPC error. */
async function refusal(name: string, args: unknown, on: Client = client): Promise<string> {
  try {
    const result = (await on.callTool({ name, arguments: args as Record<string, unknown> })) as ToolResult;
    expect(result.isError, `${name} accepted ${JSON.stringify(args).slice(0, 80)}`).toBe(true);
    return result.content[0]!.text;
  } catch (error) {
    return (error as Error).message;
  }
}

const json = (result: ToolResult) => JSON.parse(result.content[0]!.text);
const everyText: string[] = [];

async function createJob(session?: string): Promise<string> {
  const answer = await fetch(`${mock.url}/v0/evaluations`, {
    ...jsonPost(evaluationRequest(), {
      'idempotency-key': newKey(),
      authorization: bearer,
      ...(session === undefined ? {} : { 'x-mock-session': session }),
    }),
  });
  return ((await answer.json()) as { jobId: string }).jobId;
}

beforeAll(async () => {
  mock = await startMockServer({ host: '127.0.0.1', port: 0, controlToken: token });
  ({ mcp, client } = await connect({ loopback: true }));
  strict = await connect({ loopback: false });
});

afterAll(async () => {
  await client?.close();
  await strict?.client.close();
  await mcp?.close();
  await strict?.mcp.close();
  await mock?.close();
  // No result of any tool carried a credential: neither the control token nor a caller's.
  for (const text of everyText) {
    expect(text).not.toContain(token);
    expect(text).not.toContain('sk-live-a1b2c3d4e5f6a7b8');
  }
});

it('lists every tool, each with an input schema', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(
    [
      'advance_job',
      'client_findings',
      'conformance',
      'coverage',
      'diff',
      'inspect_job',
      'list_jobs',
      'list_scenarios',
      'list_sessions',
      'profile',
      'put_scenario',
      'query_journal',
      'reset',
      'set_job_state',
    ].sort(),
  );
  for (const tool of tools) {
    expect(tool.inputSchema.type).toBe('object');
    expect(tool.description?.length).toBeGreaterThan(20);
  }
});

it('drives scenarios, jobs, the journal and coverage on the running mock', async () => {
  const record = (result: ToolResult) => {
    everyText.push(result.content[0]!.text);
    expect(result.isError, result.content[0]!.text).toBeFalsy();
    return json(result);
  };
  expect(record(await call('reset')).current).toBe('default');
  const listed = record(await call('list_scenarios'));
  expect(listed.scenarios.map((scenario: { name: string }) => scenario.name)).toContain('manual');
  expect(record(await call('put_scenario', { name: 'manual' })).current).toBe('manual');
  const jobId = await createJob();
  expect(record(await call('list_jobs', { limit: 10 })).jobs.map((entry: { job: { jobId: string } }) => entry.job.jobId)).toContain(jobId);
  expect(record(await call('inspect_job', { jobId })).job.status).toBe('QUEUED');
  expect(record(await call('advance_job', { jobId })).status).toBe('RUNNING');
  expect(record(await call('set_job_state', { jobId, status: 'FAILED' })).status).toBe('FAILED');
  const journal = record(await call('query_journal', { limit: 50 }));
  expect(JSON.stringify(journal)).toContain('/v0/evaluations');
  const coverage = record(await call('coverage', { covered: true }));
  expect(coverage.covered).toBeGreaterThan(0);
  expect(coverage.clientFindings).toBeUndefined();
  expect(Array.isArray(record(await call('client_findings')).clientFindings)).toBe(true);
  const own = record(
    await call('put_scenario', {
      scenario: { name: 'from-agent', description: 'jobs fail', job: { timeline: [{ status: 'FAILED', at: { reads: 1 } }] } },
    }),
  );
  expect(own.current).toBe('from-agent');
  record(await call('reset'));
});

it('acts on the session it is given, and shows the sessions and the profile in force', async () => {
  const record = (result: ToolResult) => {
    everyText.push(result.content[0]!.text);
    expect(result.isError, result.content[0]!.text).toBeFalsy();
    return json(result);
  };
  expect(record(await call('put_scenario', { name: 'job-failed', session: 'agent-a' })).current).toBe('job-failed');
  // The default session keeps its own scenario.
  expect(record(await call('list_scenarios')).inForce.current).not.toBe('job-failed');
  const inA = await createJob('agent-a');
  const inDefault = await createJob();
  const journal = record(await call('query_journal', { session: 'agent-a', operation: 'createEvaluation', order: 'newest' }));
  expect(JSON.stringify(journal)).toContain(inA);
  expect(JSON.stringify(journal)).not.toContain(inDefault);
  expect((await call('inspect_job', { jobId: inDefault, session: 'agent-a' })).isError).toBe(true);
  expect(JSON.stringify(record(await call('list_sessions')))).toContain('agent-a');
  expect(record(await call('profile')).entries).toBeDefined();
  expect(await refusal('reset', { session: 'bad name!' })).toMatch(/session|Invalid|invalid/);
  record(await call('reset', { session: 'agent-a' }));
});

it('runs the conformance runner against the mock and answers a summary with the failures capped', async () => {
  const result = await call('conformance', {
    baseUrl: mock.url,
    operations: ['health'],
    headers: { authorization: bearer },
    maxFailures: 5,
  });
  everyText.push(result.content[0]!.text);
  expect(result.isError, result.content[0]!.text).toBeFalsy();
  const summary = json(result);
  expect(summary.verdict).toMatch(/^(PASSED|FAILED|INCOMPLETE) \(exit \d\)$/);
  expect(summary.requests).toBeGreaterThan(0);
  expect(summary.failures.length).toBeLessThanOrEqual(5);
}, 60_000);

it('diffs two documents inside the project and says whom each change breaks', async () => {
  const folder = mkdtempSync(join(process.cwd(), 'test', 'mcp', '.tmp-'));
  const { readFileSync } = await import('node:fs');
  const next = join(folder, 'next.yaml');
  writeFileSync(next, readFileSync(bundledSpecPath(), 'utf8').replace('maxLength: 128', 'maxLength: 64'));
  try {
    const result = await call('diff', { old: 'spec/openapi.yaml', new: next, format: 'json' });
    everyText.push(result.content[0]!.text);
    expect(result.isError, result.content[0]!.text).toBeFalsy();
    const report = json(result);
    expect(report.changes.length).toBeGreaterThan(0);
    expect(report.changes[0].rule).toBe('limit-tightened');
  } finally {
    const { rmSync } = await import('node:fs');
    rmSync(folder, { recursive: true, force: true });
  }
});

it('reads the contract, an assumption by number and the scenario catalogue as resources', async () => {
  const contract = await client.readResource({ uri: 'evidence-harness://contract/openapi.yaml' });
  expect((contract.contents[0] as { text: string }).text).toContain('openapi: 3.1');
  const entry = await client.readResource({ uri: 'evidence-harness://assumptions/26' });
  expect((entry.contents[0] as { text: string }).text).toMatch(/^## A-26 Consumer coverage/);
  const scenarios = await client.readResource({ uri: 'evidence-harness://scenarios' });
  expect(JSON.parse((scenarios.contents[0] as { text: string }).text).map((s: { name: string }) => s.name)).toContain('flaky-503');
  const { resourceTemplates } = await client.listResourceTemplates();
  expect(resourceTemplates.map((template) => template.uriTemplate)).toContain('evidence-harness://assumptions/{number}');
  await expect(client.readResource({ uri: 'evidence-harness://assumptions/9999' })).rejects.toThrow(/no assumption 9999/);
});

it('offers prompts that name the tools to call', async () => {
  const { prompts } = await client.listPrompts();
  expect(prompts.map((prompt) => prompt.name).sort()).toEqual(['what_new_version_breaks', 'why_poll_loop_flagged']);
  const poll = await client.getPrompt({ name: 'why_poll_loop_flagged', arguments: { jobId: 'job-1' } });
  expect(JSON.stringify(poll.messages)).toContain('client_findings');
  const breaks = await client.getPrompt({ name: 'what_new_version_breaks', arguments: { old: 'a.yaml', new: 'b.yaml' } });
  expect(JSON.stringify(breaks.messages)).toContain('`diff`');
});

it('answers hostile arguments with an MCP error and keeps serving', async () => {
  let deep: unknown = 'x';
  for (let level = 0; level < 200; level += 1) deep = { a: deep };
  const cases: [string, unknown, RegExp][] = [
    ['inspect_job', { jobId: 'j'.repeat(100_000) }, /jobId|too_big|at most|256/i],
    ['list_jobs', { limit: 'ten' }, /limit|number/i],
    ['list_jobs', { limit: 1e9 }, /limit|100/i],
    ['set_job_state', { jobId: 'x', status: 42 }, /status|string/i],
    ['put_scenario', { scenario: deep }, /nested more than 32 deep/],
    ['put_scenario', {}, /exactly one of name and scenario/],
    ['put_scenario', { name: 'no-such-scenario' }, /404|400|no-such-scenario/],
    ['diff', { old: '/etc/passwd', new: 'spec/openapi.yaml' }, /outside the project/],
    ['diff', { old: '../../../../etc/hostname', new: 'spec/openapi.yaml' }, /outside the project/],
    ['diff', { old: 'file:///etc/passwd', new: 'spec/openapi.yaml' }, /only http and https/],
    ['conformance', { baseUrl: 'http://127.0.0.1:9/' }, /this machine\); start the server with --allow-loopback/],
    ['conformance', { baseUrl: 'http://[::1]:9/' }, /this machine/],
    ['conformance', { baseUrl: 'http://localhost:9/' }, /this machine/],
    ['conformance', { baseUrl: 'http://0x7f000001:9/' }, /this machine/],
    // Judged by what it resolves to: this machine where it resolves, and nothing reached where it does not.
    ['conformance', { baseUrl: 'http://localhost.:9/' }, /this machine|could not be resolved/],
    ['diff', { old: 'http://[::ffff:127.0.0.1]:9/a.yaml', new: 'spec/openapi.yaml' }, /this machine/],
    ['conformance', { baseUrl: 'https://example.test', spec: '/etc/passwd' }, /outside the project/],
    ['conformance', { baseUrl: ['http://x'] }, /baseUrl|string/i],
    ['no_such_tool', {}, /not found/],
  ];
  for (const [name, args, reason] of cases) {
    const message = await refusal(name, args, strict.client);
    everyText.push(message);
    expect(message, `${name} ${JSON.stringify(args).slice(0, 60)}`).toMatch(reason);
    expect(message.length).toBeLessThan(70_000);
  }
  // Still up: the same server answers an ordinary call.
  const ping = await call('list_scenarios', {}, strict.client);
  expect(ping.isError).toBeFalsy();
});

it('cuts a large result to 64 KiB, says so, and scrubs the control token from free text', () => {
  const scrubber = new Scrubber({ secrets: [token] });
  const result = boundedResult({ rows: Array.from({ length: 5000 }, (_, index) => `row ${index} ${token}`) }, scrubber);
  const text = result.content[0].text;
  expect(text.length).toBeLessThan(maxResultChars + 200);
  expect(text).toMatch(/… cut: \d+ more characters/);
  expect(text).not.toContain(token);
});
