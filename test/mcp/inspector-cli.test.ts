/**
 * `evidence-harness mcp` as MCP's own inspector sees it (@modelcontextprotocol/inspector-cli, in
 * CLI mode): it starts the built executable over stdio, lists the tools, and calls every one of
 * them against a running mock with a control token. A second client, written by the protocol's
 * maintainers rather than by us, agrees on the handshake, the schemas and the results; and no
 * result carries the control token or a caller's credential.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundledSpecPath, executablePath } from '../../src/openapi/package-root.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { evaluationRequest, jsonPost, newKey } from '../support/fixtures.js';
import { testTimeout } from '../support/time-limits.js';

const token = 'control-token-inspector-5e1d';
const bearer = 'Bearer sk-live-inspector-0a9b8c7d';
const testFolder = join(process.cwd(), 'test');
let mock: RunningMockServer;
let documents: string;

beforeAll(async () => {
  mock = await startMockServer({ host: '127.0.0.1', port: 0, controlToken: token });
  // The diff tool reads files inside the MCP server's working folder (test/, below).
  documents = mkdtempSync(join(testFolder, 'mcp', '.tmp-inspector-'));
  writeFileSync(join(documents, 'next.yaml'), readFileSync(bundledSpecPath(), 'utf8').replace('maxLength: 128', 'maxLength: 64'));
  writeFileSync(join(documents, 'old.yaml'), readFileSync(bundledSpecPath(), 'utf8'));
});

afterAll(async () => {
  await mock?.close();
  rmSync(documents, { recursive: true, force: true });
});

/** One inspector-cli call: `method` with its flags, against `evidence-harness mcp` attached to the mock. */
async function inspector(method: string, flags: readonly string[] = []): Promise<any> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      join(process.cwd(), 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build', 'cli.js'),
      '--cli',
      process.execPath,
      executablePath(),
      'mcp',
      '--mock-url',
      mock.url,
      '--allow-loopback',
      '-e',
      `EVIDENCE_HARNESS_CONTROL_TOKEN=${token}`,
      '--method',
      method,
      ...flags,
    ],
    // inspector-cli 1.0.3 looks for its own package.json at ../package.json of the working folder
    // (a path meant for its monorepo); from test/ that is the project's, which it then reads.
    { cwd: testFolder, encoding: 'utf8', maxBuffer: 4 * 1024 * 1024 },
  );
  expect(stdout).not.toContain(token);
  expect(stdout).not.toContain('sk-live-inspector');
  return JSON.parse(stdout);
}

async function tool(name: string, args: Record<string, unknown> = {}): Promise<any> {
  const flags = Object.entries(args).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  const result = await inspector('tools/call', ['--tool-name', name, ...(flags.length > 0 ? ['--tool-arg', ...flags] : [])]);
  expect(result.isError, `${name}: ${result.content?.[0]?.text}`).toBeFalsy();
  return JSON.parse(result.content[0].text);
}

it(
  'lists every tool with an input schema, and calls each against a running mock',
  async () => {
    const { tools } = await inspector('tools/list');
    const names = tools.map((entry: { name: string }) => entry.name).sort();
    for (const entry of tools) expect(entry.inputSchema.type, entry.name).toBe('object');

    const called = new Set<string>();
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      called.add(name);
      return tool(name, args);
    };
    expect((await call('reset')).current).toBe('default');
    expect((await call('list_scenarios')).scenarios.map((scenario: { name: string }) => scenario.name)).toContain('manual');
    expect((await call('put_scenario', { name: 'manual' })).current).toBe('manual');
    const created = await fetch(
      `${mock.url}/v0/evaluations`,
      jsonPost(evaluationRequest(), { 'idempotency-key': newKey(), authorization: bearer }),
    );
    const { jobId } = (await created.json()) as { jobId: string };
    expect(JSON.stringify(await call('list_jobs', { limit: 10 }))).toContain(jobId);
    expect((await call('inspect_job', { jobId })).job.status).toBe('QUEUED');
    expect((await call('advance_job', { jobId })).status).toBe('RUNNING');
    expect((await call('set_job_state', { jobId, status: 'FAILED' })).status).toBe('FAILED');
    expect(JSON.stringify(await call('query_journal', { operation: 'createEvaluation', order: 'newest' }))).toContain(jobId);
    expect((await call('coverage')).covered).toBeGreaterThan(0);
    expect(Array.isArray((await call('client_findings')).clientFindings)).toBe(true);
    expect((await call('profile')).entries).toBeDefined();
    expect(JSON.stringify(await call('list_sessions'))).toContain('default');
    const run = await call('conformance', { baseUrl: mock.url, operations: ['health'], maxFailures: 3 });
    expect(run.verdict).toMatch(/^(PASSED|FAILED|INCOMPLETE) \(exit \d\)$/);
    const inside = (file: string) => relative(testFolder, join(documents, file));
    const diff = await call('diff', { old: inside('old.yaml'), new: inside('next.yaml'), format: 'json' });
    expect(diff.changes[0].rule).toBe('limit-tightened');

    expect([...called].sort()).toEqual(names);
  },
  testTimeout({ processes: 30 }),
);
