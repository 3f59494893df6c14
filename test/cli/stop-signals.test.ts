/**
 * SIGHUP (a closed terminal, a tmux or ssh session gone, `kill -HUP`) stops `mock` as SIGTERM
 * does (the built CLI): its coverage report and pact are written and it exits 0; a second one
 * exits at once with 129 (issue 40: Node's default for SIGHUP exited with neither file).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';

const spawnCli = cliChildrenKilledAfterEach();
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const made = mkdtempSync(join(tmpdir(), 'eh-sighup-'));
  folders.push(made);
  return made;
}

it('SIGHUP to the mock writes its coverage report and pact, then exits 0', async () => {
  const cwd = folder();
  const mock = spawnCli(['mock', '--port', '0', '--coverage-report', 'json=coverage.json', '--pact-out', 'web.json'], { cwd });
  const [, url] = await mock.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  expect((await fetch(`${url}/health`)).status).toBe(200);
  mock.child.kill('SIGHUP');
  expect(await mock.exit).toBe(0);
  expect(mock.stdout()).toMatch(/SIGHUP: stopping/);
  const coverage = JSON.parse(readFileSync(join(cwd, 'coverage.json'), 'utf8')) as { behaviours: { id: string; covered: boolean }[] };
  expect(coverage.behaviours.find((behaviour) => behaviour.id === 'health 200')?.covered).toBe(true);
  expect(JSON.parse(readFileSync(join(cwd, 'web.json'), 'utf8')).metadata.pactSpecification.version).toBe('4.0');
});

it('a second SIGHUP while the stop waits exits at once with 129', async () => {
  const cwd = folder();
  const mock = spawnCli(['mock', '--port', '0', '--coverage-report', 'json=coverage.json'], { cwd });
  const [, url] = await mock.waitFor(/listening on (http:\/\/127\.0\.0\.1:(\d+))/);
  // A request whose body never ends holds the stop in its grace time.
  const held = request(`${url}/v0/evaluations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': '1000' },
  });
  held.on('error', () => undefined);
  held.write('{');
  await new Promise((resolve) => held.once('socket', (socket) => socket.once('connect', resolve)));
  // Answered after the held request's head, sent earlier on its own connection, was read.
  expect((await fetch(`${url}/health`)).status).toBe(200);
  mock.child.kill('SIGHUP');
  await mock.waitFor(/SIGHUP: stopping/);
  mock.child.kill('SIGHUP');
  expect(await mock.exit).toBe(129);
  held.destroy();
  expect(existsSync(join(cwd, 'coverage.json'))).toBe(false);
});
