/**
 * Passive learning (A-69): client traffic through the proxy in front of a server whose decisions
 * differ from the mock's exercises not-shown points; `proxy --write-profile`'s watcher learns
 * them with the runner's learner and, once the proxy stops, writes a profile through the same
 * writer as `conformance --write-profile`; `mock --profile` with it then answers like the server
 * on each of those points. No credential reaches the file, and the proxy sends nothing of its own.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { schemeOf, writeTrafficProfile } from '../../src/cli/write-profile.js';
import { Scrubber } from '../../src/conformance/secrets.js';
import { readProfileFile } from '../../src/profile/load.js';
import { ProfileLearning } from '../../src/proxy/profile-learning.js';
import { type RunningProxy, startProxyServer } from '../../src/proxy/proxy-server.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { type OwnDecisionsServer, startOwnDecisionsServer } from '../fixtures/profile-server/own-decisions-server.js';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { evaluationRequest } from '../support/fixtures.js';
import { notShownAnswers } from '../support/not-shown-points.js';

const folder = mkdtempSync(join(tmpdir(), 'eh-passive-'));
const profileFile = join(folder, 'learnt.yaml');
const cassetteFile = join(folder, 'traffic.har');
const alice = { 'x-api-key': 'alice-key-0123456789' };

let server: OwnDecisionsServer;
let proxy: RunningProxy;
let mock: RunningMockServer | undefined;
let stderr = '';
let exchanges = 0;

beforeAll(async () => {
  server = await startOwnDecisionsServer();
  const scrubber = new Scrubber();
  const learning = new ProfileLearning({ isCredentialHeader: (name) => scrubber.isCredentialHeader(name), schemeOf });
  proxy = await startProxyServer({ upstream: server.url, port: 0, record: true, scrubber, profileWatchers: [learning] });
  // The client's traffic, through the proxy.
  await notShownAnswers(proxy.url, { caller: alice });
  await proxy.close({ graceMs: 100 });
  exchanges = proxy.report().exchanges;
  await proxy.writeCassette(cassetteFile);
  await writeTrafficProfile({
    learning,
    file: profileFile,
    io: { stdout: () => undefined, stderr: (text) => (stderr += text) },
    command: 'proxy',
    label: '--write-profile',
    source: server.url,
    scrub: (text) => scrubber.scrub(text),
  });
}, 60_000);

afterAll(async () => {
  await server.close();
  await mock?.close({ graceMs: 100 });
  rmSync(folder, { recursive: true, force: true });
});

it('writes a profile of what the traffic showed, each entry with how often, and what it did not decide with why', () => {
  const text = readFileSync(profileFile, 'utf8');
  expect(stderr).toMatch(/proxy: wrote the server's profile to .*learnt\.yaml: \d+ entries learnt from \d+ exchanges/);
  expect(text).toContain('media-type: {status: 400, code: UNSUPPORTED_CONTENT}');
  expect(text).toMatch(/# seen 1×: POST \/v0\/evaluations, text\/plain → 400 UNSUPPORTED_CONTENT/);
  expect(text).toContain('undeclared-method: {status: 404, code: NOT_FOUND, allow: false}');
  expect(text).toContain('without-credentials: {status: 401, code: UNAUTHENTICATED}');
  expect(text).toContain('caller: {header: X-Api-Key, scheme: any}');
  expect(text).toContain('unknown-job: {status: 404, code: JOB_NOT_FOUND}');
  expect(text).toContain('conflict: {status: 409, code: IDEMPOTENCY_CONFLICT}');
  expect(text).toContain('timeline: {first: RUNNING, through: [RUNNING, COMPLETE]}');
  const unfolded = text.replace(/\n# {3}/g, ' ');
  expect(unfolded).toMatch(/# - not seen in the traffic: [^\n]*A-11\.rate-limited/);
  expect(unfolded).toMatch(
    /# - asked only by the learner's own questions \(the proxy sends no request of its own[^\n]*A-13\.body-limits \(bodies of bisected sizes\)/,
  );
  // Each of the client's exchanges read once, and nothing else.
  expect(stderr).toContain(`from ${exchanges} exchanges`);
  expect(text).not.toContain('alice-key');
});

it('makes `mock --profile` answer like the server on each not-shown point the traffic exercised', async () => {
  mock = await startMockServer({ port: 0, host: '127.0.0.1', profile: await readProfileFile(profileFile) });
  const fromServer = await notShownAnswers(server.url, { caller: alice });
  const fromMock = await notShownAnswers(mock.url, { caller: alice });
  expect(fromMock).toEqual(fromServer);
  // The plain mock decides otherwise on most of them.
  const plain = await startMockServer({ port: 0, host: '127.0.0.1' });
  try {
    const fromPlain = await notShownAnswers(plain.url, { caller: alice });
    expect(fromPlain.filter((answer, index) => answer !== fromServer[index]).length).toBeGreaterThan(6);
  } finally {
    await plain.close({ graceMs: 100 });
  }
}, 60_000);

it('keeps a Bearer credential out of the profile, and names the caller by its header and scheme', async () => {
  const secret = 's3cret-token-0123456789abcdef';
  const requiring = join(folder, 'requiring.yaml');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    requiring,
    'profile: 2\nA-10:\n  caller: {header: Authorization, scheme: Bearer}\n  without-credentials: {status: 401, code: auth_required}\n',
  );
  const upstream = await startMockServer({ port: 0, host: '127.0.0.1', profile: await readProfileFile(requiring) });
  const scrubber = new Scrubber();
  const learning = new ProfileLearning({ isCredentialHeader: (name) => scrubber.isCredentialHeader(name), schemeOf });
  const front = await startProxyServer({ upstream: upstream.url, port: 0, scrubber, profileWatchers: [learning] });
  try {
    const bearer = { authorization: `Bearer ${secret}` };
    const created = await fetch(`${front.url}/v0/evaluations`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json', 'idempotency-key': `k-${secret}` },
      body: JSON.stringify(evaluationRequest({ operationId: secret })),
    });
    expect(created.status).toBe(202);
    await fetch(`${front.url}/v0/jobs/job_unknown`, { headers: bearer });
    expect((await fetch(`${front.url}/v0/jobs/job_x`)).status).toBe(401);
  } finally {
    await front.close({ graceMs: 100 });
    await upstream.close({ graceMs: 100 });
  }
  const file = join(folder, 'bearer.yaml');
  await writeTrafficProfile({
    learning,
    file,
    io: { stdout: () => undefined, stderr: () => undefined },
    command: 'proxy',
    label: '--write-profile',
    source: upstream.url,
    scrub: (text) => scrubber.scrub(text),
  });
  const text = readFileSync(file, 'utf8');
  expect(text).toContain('caller: {header: Authorization, scheme: Bearer}');
  expect(text).toContain('without-credentials: {status: 401, code: auth_required');
  expect(text).not.toContain('s3cret');
});

const spawnCli = cliChildrenKilledAfterEach();

it('`proxy --write-profile FILE` (the built command) writes the profile when stopped, and refuses a bad FILE at start', async () => {
  const file = join(folder, 'cli', 'learnt.yaml');
  const child = spawnCli(['proxy', '--upstream', server.url, '--port', '0', '--quiet', '--write-profile', file]);
  const [, url] = await child.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  const text = await fetch(`${url}/v0/evaluations`, {
    method: 'POST',
    headers: { ...alice, 'content-type': 'text/plain', 'idempotency-key': 'k-cli' },
    body: JSON.stringify(evaluationRequest()),
  });
  expect(text.status).toBe(400);
  child.child.kill('SIGTERM');
  expect(await child.exit).toBe(0);
  expect(child.stderr()).toMatch(/proxy: wrote the server's profile to .*learnt\.yaml: \d+ entries learnt from 1 exchanges/);
  expect(readFileSync(file, 'utf8')).toContain('media-type: {status: 400, code: UNSUPPORTED_CONTENT}');
  // A FILE that cannot be written fails at start, in one line, before anything listens.
  const refused = spawnCli(['proxy', '--upstream', server.url, '--port', '0', '--write-profile', join(file, 'under-a-file.yaml')]);
  expect(await refused.exit).toBe(2);
  expect(refused.stderr().trim().split('\n')).toEqual([expect.stringContaining('--write-profile')]);
  expect(refused.stdout()).not.toContain('listening');
}, 30_000);
