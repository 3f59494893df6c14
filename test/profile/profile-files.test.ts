/**
 * Profiles through the one writer (issue 40, A-52): `conformance --write-profile FILE` and
 * `profile --init --out FILE [--force]` check FILE at start (a symlink, a FIFO, a device, a
 * folder, a folder that cannot be made, a read-only place: exit 2, one line, before any request
 * reaches the server) and write by temporary file and rename (never through a link, never into a
 * hard-linked inode in place). An interrupted run writes no profile and leaves a file already
 * there as it was.
 */
import { spawn } from 'node:child_process';
import { linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { executablePath } from '../../src/openapi/package-root.js';
import { readProfileFile } from '../../src/profile/load.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { fifosReleasedAfterEach } from '../support/fifo.js';
import { runMain } from '../support/run-main.js';

const makeFifo = fifosReleasedAfterEach();
let folder: string;
let elsewhere: string;

/** A loopback server that counts the requests it gets, answering health and a 404 Error to the rest. */
let counting: { server: Server; url: string; requests: number; onRequest?: (count: number) => void };
let mock: RunningMockServer;

beforeAll(async () => {
  const server = createServer((request, response) => {
    counting.requests += 1;
    counting.onRequest?.(counting.requests);
    const body = request.url === '/health' ? { status: 'ok' } : { code: 'route_not_found', message: 'no such route' };
    response.writeHead(request.url === '/health' ? 200 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  counting = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: 0 };
  mock = await startMockServer({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await new Promise((resolve) => counting.server.close(resolve));
  await mock.close({ graceMs: 100 });
});
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'eh-profile-files-'));
  elsewhere = join(folder, 'elsewhere.yaml');
  writeFileSync(elsewhere, 'keep me\n');
  counting.requests = 0;
  counting.onRequest = undefined;
});

/** Each target the writer refuses at start, and the words the one-line message uses for it. */
function refusedTargets(): { name: string; path: string; says: RegExp }[] {
  const link = join(folder, 'link.yaml');
  symlinkSync(elsewhere, link);
  const fifo = join(folder, 'fifo.yaml');
  makeFifo(fifo);
  const directory = join(folder, 'a-folder.yaml');
  mkdirSync(directory);
  const inTheWay = join(folder, 'a-file');
  writeFileSync(inTheWay, 'not a folder');
  return [
    { name: 'a symlink', path: link, says: /link\.yaml: a symbolic link is there/ },
    { name: 'a FIFO', path: fifo, says: /fifo\.yaml: a named pipe \(FIFO\) is there/ },
    { name: 'a folder', path: directory, says: /a-folder\.yaml: a folder is there/ },
    { name: '/dev/full', path: '/dev/full', says: /\/dev\/full: a device is there/ },
    {
      name: 'a missing folder that cannot be made',
      path: join(inTheWay, 'sub', 'p.yaml'),
      says: /cannot write there \(a file is in the way/,
    },
    { name: 'a read-only place', path: '/proc/nope/p.yaml', says: /\/proc\/nope\/p\.yaml: cannot write there/ },
  ];
}

it('refuses each unwritable --write-profile target at start, exit 2 and one line, before any request reaches the server', async () => {
  for (const target of refusedTargets()) {
    const result = await runMain('conformance', '--base-url', counting.url, '--seed', '1', '--write-profile', target.path);
    expect(result.code, `${target.name}: ${result.stderr}`).toBe(2);
    expect(result.stderr, target.name).toMatch(target.says);
    expect(result.stderr).toMatch(/^evidence-harness: conformance: --write-profile /);
    expect(result.stderr.trim().split('\n'), target.name).toHaveLength(1);
    expect(counting.requests, target.name).toBe(0);
  }
  expect(readFileSync(elsewhere, 'utf8')).toBe('keep me\n');
});

it('makes a missing folder at start, as --report does, and writes the profile by rename: a hard-linked file’s other name is unchanged', async () => {
  const target = join(folder, 'new', 'deeper', 'profile.yaml');
  mkdirSync(join(folder, 'new', 'deeper'), { recursive: true });
  writeFileSync(target, 'old profile\n');
  const otherName = join(folder, 'other-name.yaml');
  linkSync(target, otherName);
  const made = join(folder, 'made', 'profile.yaml');
  const run = (file: string) =>
    runMain('conformance', '--base-url', mock.url, '--seed', '1', '--quiet', '--checks', 'error_body', '--write-profile', file);
  const first = await run(target);
  expect(first.stderr).toMatch(/wrote the server's profile to/);
  expect(readFileSync(otherName, 'utf8')).toBe('old profile\n');
  expect(readFileSync(target, 'utf8')).toMatch(/^# yaml-language-server/);
  await readProfileFile(target);
  const second = await run(made);
  expect(second.stderr).toMatch(/wrote the server's profile to/);
  await readProfileFile(made);
}, 120_000);

it('profile --init --out: refuses a link, a FIFO, a folder and a device at start even with --force, never touching what a link points at', async () => {
  for (const target of refusedTargets()) {
    for (const force of [[], ['--force']]) {
      const result = await runMain('profile', '--init', '--out', target.path, ...force);
      expect(result.code, `${target.name} ${force.join('')}: ${result.stderr}`).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      if (!target.name.startsWith('a missing') && !target.name.startsWith('a read-only')) expect(result.stderr).toMatch(target.says);
    }
  }
  expect(readFileSync(elsewhere, 'utf8')).toBe('keep me\n');
});

it('profile --init --out keeps an existing file without --force, and with --force replaces it by rename (the other name of a hard link keeps its text)', async () => {
  const out = join(folder, 'profile.yaml');
  writeFileSync(out, 'mine\n');
  const otherName = join(folder, 'other-name.yaml');
  linkSync(out, otherName);
  const kept = await runMain('profile', '--init', '--out', out);
  expect(kept.code).toBe(2);
  expect(kept.stderr).toContain('exists; give --force to replace it');
  expect(readFileSync(out, 'utf8')).toBe('mine\n');
  const forced = await runMain('profile', '--init', '--out', out, '--force');
  expect(forced.code, forced.stderr).toBe(0);
  expect(readFileSync(otherName, 'utf8')).toBe('mine\n');
  expect(lstatSync(out).isFile()).toBe(true);
  expect(lstatSync(out).nlink).toBe(1);
  await readProfileFile(out);
  // A new file: written, and a folder missing on the way is made.
  const fresh = join(folder, 'new', 'p.yaml');
  expect((await runMain('profile', '--init', '--out', fresh)).code).toBe(0);
  await readProfileFile(fresh);
});

it('writes no profile when the run is interrupted (SIGINT), says so, and leaves the file already there as it was', async () => {
  const target = join(folder, 'profile.yaml');
  writeFileSync(target, 'the last good profile\n');
  const child = spawn(
    process.execPath,
    [executablePath(), 'conformance', '--base-url', counting.url, '--seed', '1', '--write-profile', target],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdout.resume();
  // The third request the server gets is the moment: the run is under way.
  counting.onRequest = (count) => {
    if (count === 3) child.kill('SIGINT');
  };
  const safety = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code] = await new Promise<[number | null]>((resolve) => child.once('close', (exit) => resolve([exit])));
  clearTimeout(safety);
  expect(code, stderr).toBe(130);
  expect(stderr).toContain('conformance: --write-profile: no profile written: the run was interrupted');
  expect(stderr).not.toMatch(/wrote the server's profile/);
  expect(readFileSync(target, 'utf8')).toBe('the last good profile\n');
}, 90_000);
