/**
 * `evidence-harness proxy` as a person runs it: in front of the built mock, it logs one line per
 * exchange naming its violations, serves its report at /__proxy/report, and on SIGTERM writes
 * the JSON report and exits within 5 s. Usage errors exit 2 with a message naming the flag.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';
import { mockServersClosedAfterEach } from '../support/started-servers.js';
import { inTime } from '../support/time-limits.js';

const startMock = mockServersClosedAfterEach();
const spawnCli = cliChildrenKilledAfterEach();
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

it('logs each exchange with its violations, serves the report, and writes it on SIGTERM', async () => {
  const mock = await startMock();
  const folder = mkdtempSync(join(tmpdir(), 'eh-proxy-'));
  folders.push(folder);
  const reportFile = join(folder, 'reports', 'proxy.json');
  const harFile = join(folder, 'proxy.har');
  const junitFile = join(folder, 'reports', 'proxy.xml');
  const htmlFile = join(folder, 'reports', 'proxy.html');
  const proxy = spawnCli([
    'proxy',
    '--upstream',
    mock.url,
    '--port',
    '0',
    '--report',
    `json=${reportFile}`,
    '--record',
    harFile,
    '--report',
    `junit=${junitFile}`,
    '--report',
    `html=${htmlFile}`,
  ]);
  const [, url] = await proxy.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);

  expect((await fetch(`${url}/health`)).status).toBe(200);
  const invalid = await fetch(`${url}/v0/evaluations`, jsonPost({ ...evaluationRequest(), evidence: [] }, { 'idempotency-key': 'k-1' }));
  expect(invalid.headers.get('contract-violations')).toBe('request_body_schema');
  const served = await (await fetch(`${url}/__proxy/report`)).json();
  expect(served.exchanges).toBe(2);
  expect(served.violations).toEqual([expect.objectContaining({ check: 'request_body_schema', side: 'request' })]);
  await expect.poll(() => proxy.stdout()).toMatch(/POST \/v0\/evaluations 400 [\d.]+ms request:request_body_schema/);
  expect(proxy.stdout()).toMatch(/GET \/health 200 [\d.]+ms ok/);

  const stopped = performance.now();
  proxy.child.kill('SIGTERM');
  expect(await proxy.exit).toBe(0);
  // The stop's deadline honoured (the mock's 3 s grace and 1 s to exit), not its speed.
  expect(performance.now() - stopped).toBeLessThan(inTime(4000));
  const written = JSON.parse(readFileSync(reportFile, 'utf8'));
  expect(written.violations).toHaveLength(1);
  // JUnit and HTML in the runner's formats: the request rule that failed is a <failure>.
  const junit = readFileSync(junitFile, 'utf8');
  expect(junit).toMatch(/<testcase classname="conformance.required" name="request_body_schema" time="0">[\s\S]*?<failure /);
  expect(junit).toMatch(
    /<testcase classname="conformance.required" name="status_code_documented" time="0">\s*<properties>[^\n]*<\/properties>\s*<\/testcase>/,
  );
  expect(readFileSync(htmlFile, 'utf8')).toContain('request_body_schema');
  const har = JSON.parse(readFileSync(harFile, 'utf8'));
  expect(har.log.entries.map((entry: { request: { method: string } }) => entry.request.method)).toEqual(['GET', 'POST']);
  expect(proxy.stdout()).toContain('2 exchanges; 1 request violation(s), 0 response violation(s)');
});

it('refuses a missing or unusable --upstream with exit 2, naming the flag', async () => {
  const missing = spawnCli(['proxy']);
  expect(await missing.exit).toBe(2);
  expect(missing.stderr()).toContain('--upstream is required');
  const credentials = spawnCli(['proxy', '--upstream', 'http://admin:hunter2@127.0.0.1:9']);
  expect(await credentials.exit).toBe(2);
  expect(credentials.stderr()).toContain('must not carry a user name or password');
  expect(credentials.stderr()).not.toContain('hunter2');
  const timeline = spawnCli(['proxy', '--upstream', 'http://127.0.0.1:9', '--scenario', 'slow-pass']);
  expect(await timeline.exit).toBe(2);
  expect(timeline.stderr()).toContain(
    "--scenario: scenario 'slow-pass' has a job timeline or rules; the proxy injects only faults and latency",
  );
});

it('exits 1 naming the reason when the cassette cannot be written on stop, after writing what it can', async () => {
  const mock = await startMock();
  const folder = mkdtempSync(join(tmpdir(), 'eh-proxy-'));
  folders.push(folder);
  // Writable at start (an unwritable one is refused then, exit 2); a file takes the folder's place while it serves.
  const blocker = join(folder, 'a-file');
  const reportFile = join(folder, 'proxy.json');
  const proxy = spawnCli([
    'proxy',
    '--upstream',
    mock.url,
    '--port',
    '0',
    '--record',
    join(blocker, 'proxy.har'),
    '--report',
    `json=${reportFile}`,
  ]);
  const [, url] = await proxy.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  rmSync(blocker, { recursive: true });
  writeFileSync(blocker, 'not a folder');
  expect((await fetch(`${url}/health`)).status).toBe(200);
  proxy.child.kill('SIGTERM');
  expect(await proxy.exit).toBe(1);
  expect(proxy.stderr()).toMatch(
    /cannot write the cassette .*proxy\.har: cannot write it \(a file is in the way of a folder on its path\)/,
  );
  expect(JSON.parse(readFileSync(reportFile, 'utf8')).exchanges).toBe(1);
});
