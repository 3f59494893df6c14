/**
 * What people expect of a mock server (issue 13): `--watch` reloads an edited scenario file,
 * `--tls-cert`/`--tls-key` serve HTTPS, and `evidence-harness.config.yaml` holds the flags,
 * with the command line winning. Each through the built executable, as a person runs it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { publishedConfigSchema } from '../../src/cli/config-file.js';
import { createSchemaValidator } from '../../src/openapi/schema-validator.js';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';
import { writeGeneratedJson } from '../support/generated-json.js';
import { makeTestCertificate } from '../support/test-certificate.js';

const spawnCli = cliChildrenKilledAfterEach();
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const made = mkdtempSync(join(tmpdir(), 'eh-mock-options-'));
  folders.push(made);
  return made;
}

interface Started {
  readonly url: string;
  output(): string;
  errors(): string;
  /** Resolves once stdout holds a line matching `pattern`. */
  waitFor(pattern: RegExp): Promise<unknown>;
}

async function startMock(args: string[], options: { cwd?: string } = {}): Promise<Started> {
  const mock = spawnCli(['mock', ...args], options);
  const [, url] = await mock.waitFor(/listening on (https?:\/\/127\.0\.0\.1:\d+)/);
  return { url: url!, output: mock.stdout, errors: mock.stderr, waitFor: mock.waitFor };
}

async function runCli(args: string[], options: { cwd?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = spawnCli(args, options);
  const code = await run.exit;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

async function createAndFinish(url: string, key: string): Promise<{ status: string; evaluation?: string }> {
  const { jobId } = await (await fetch(`${url}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': key }))).json();
  for (let read = 1; ; read += 1) {
    const job = await (await fetch(`${url}/v0/jobs/${jobId}`)).json();
    if (job.status === 'COMPLETE' || job.status === 'FAILED' || read === 5) return job;
  }
}

const scenarioYaml = (evaluation: string) => `name: edited
job:
  timeline:
    - status: RUNNING
      at: { reads: 1 }
    - status: COMPLETE
      evaluation: ${evaluation}
      at: { reads: 2 }
`;

it('reloads an edited scenario file with --watch, notes it in the journal, and keeps the old one when the edit is broken', async () => {
  const dir = folder();
  const file = join(dir, 'edited.yaml');
  writeFileSync(file, scenarioYaml('PASS'));
  const mock = await startMock(['--port', '0', '--quiet', '--scenario', file, '--watch']);
  expect(mock.output()).toContain(`watching ${file}`);
  expect(await createAndFinish(mock.url, 'w-1')).toMatchObject({ status: 'COMPLETE', evaluation: 'PASS' });

  writeFileSync(file, scenarioYaml('FAIL'));
  await mock.waitFor(/scenario reloaded from .*edited\.yaml: edited \(in force\)/);
  expect(await createAndFinish(mock.url, 'w-2')).toMatchObject({ status: 'COMPLETE', evaluation: 'FAIL' });
  const journal = await (await fetch(`${mock.url}/__mock/journal`)).json();
  const reload = journal.entries.find((entry: { method: string }) => entry.method === 'RELOAD');
  expect(reload).toMatchObject({ path: file, scenario: 'edited' });
  expect(reload.note).toContain('reloaded');

  // A broken save is reported with the file's own error, and the mock keeps serving the last good version.
  writeFileSync(file, 'name: edited\njob: [unclosed\n');
  await expect.poll(() => mock.errors()).toMatch(/--watch: .*edited\.yaml is not valid YAML/);
  expect(mock.errors()).toContain('The scenario in force is unchanged');
  expect(await createAndFinish(mock.url, 'w-3')).toMatchObject({ status: 'COMPLETE', evaluation: 'FAIL' });
  // Reset keeps the reloaded version as the starting scenario.
  await fetch(`${mock.url}/__mock/reset`, { method: 'POST' });
  expect(await createAndFinish(mock.url, 'w-4')).toMatchObject({ status: 'COMPLETE', evaluation: 'FAIL' });
});

it('refuses --watch without a scenario file, naming what to pass', async () => {
  const result = await runCli(['mock', '--watch']);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('--watch reloads a scenario file, and --scenario is not given');
});

it('serves HTTPS with --tls-cert and --tls-key, and refuses half a pair or a file that is no certificate', async () => {
  const certificate = makeTestCertificate();
  try {
    const mock = await startMock(['--port', '0', '--quiet', '--tls-cert', certificate.certFile, '--tls-key', certificate.keyFile]);
    expect(mock.url).toMatch(/^https:/);
    const status = await new Promise<number>((resolve, reject) => {
      request(`${mock.url}/health`, { ca: certificate.cert, servername: 'localhost' }, (incoming) => {
        incoming.resume();
        resolve(incoming.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(200);

    const half = await runCli(['mock', '--tls-cert', certificate.certFile]);
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('--tls-cert needs --tls-key too');
    const swapped = await runCli(['mock', '--tls-cert', certificate.keyFile, '--tls-key', certificate.keyFile]);
    expect(swapped.code).toBe(2);
    expect(swapped.stderr).toContain('holds no PEM certificate');
  } finally {
    certificate.remove();
  }
});

it('reads evidence-harness.config.yaml from the working folder; flags on the command line win', async () => {
  const dir = folder();
  writeFileSync(join(dir, 'pass-first.yaml'), scenarioYaml('INDETERMINATE'));
  writeFileSync(
    join(dir, 'evidence-harness.config.yaml'),
    [
      '# yaml-language-server: $schema=./node_modules/evidence-harness/evidence-harness.config.schema.json',
      'mock:',
      '  port: 0',
      '  quiet: true',
      '  scenario: ./pass-first.yaml',
      '  max-jobs: 2',
      '  control-origin: [http://localhost:5173]',
      '',
    ].join('\n'),
  );
  const mock = await startMock([], { cwd: dir });
  expect(mock.output()).toContain('options from evidence-harness.config.json'.replace('json', 'yaml'));
  expect(mock.output()).toContain('(scenario: edited)');
  expect(await createAndFinish(mock.url, 'c-1')).toMatchObject({ evaluation: 'INDETERMINATE' });
  // max-jobs 2 from the file: the third job evicts the first.
  await createAndFinish(mock.url, 'c-2');
  await createAndFinish(mock.url, 'c-3');
  expect((await (await fetch(`${mock.url}/__mock/jobs`)).json()).jobs).toHaveLength(2);
  const preflight = await fetch(`${mock.url}/__mock/jobs`, {
    method: 'OPTIONS',
    headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'GET' },
  });
  expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');

  // The command line wins over the file.
  const overridden = await startMock(['--scenario', 'fail'], { cwd: dir });
  expect(overridden.output()).toContain('(scenario: fail)');
});

it('refuses a config file with an unknown option or a bad value, naming the file and the path inside it', async () => {
  const dir = folder();
  writeFileSync(join(dir, 'evidence-harness.config.json'), JSON.stringify({ mock: { port: 70000, prot: 1 } }));
  const result = await runCli(['mock'], { cwd: dir });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('evidence-harness.config.json is not a valid configuration');
  expect(result.stderr).toMatch(/\/mock\/port: .*65535/);
  expect(result.stderr).toMatch(/prot/);
  const missing = await runCli(['mock', '--config', join(dir, 'nope.yaml')]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('--config: file not found');
});

it('publishes evidence-harness.config.schema.json from the config’s own schema (UPDATE_CONFIG_SCHEMA=1 rewrites it)', () => {
  const path = join(process.cwd(), 'evidence-harness.config.schema.json');
  if (process.env.UPDATE_CONFIG_SCHEMA === '1') writeGeneratedJson(path, publishedConfigSchema());
  const published = JSON.parse(readFileSync(path, 'utf8'));
  expect(published).toEqual(publishedConfigSchema());
  const validate = createSchemaValidator().compile(published);
  expect(validate({ mock: { port: 8080, 'max-job-bytes': '64MiB', watch: true } })).toBe(true);
  expect(validate({ mock: { port: 'eighty' } })).toBe(false);
});
