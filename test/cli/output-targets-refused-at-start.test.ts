/**
 * Issue 40, row "files through the one writer": every output is refused at start
 * when it cannot be written (a file in the way of a folder on its path, a folder that cannot be
 * written), exit 2 before any work, never found out at exit after a whole run or a whole
 * session of serving. Through the built executable; targets on 127.0.0.1 only.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { type CountingTarget, startCountingTarget } from '../support/counting-target.js';

const linux = process.platform === 'linux';
const spawnCli = cliChildrenKilledAfterEach();
const folders: string[] = [];
const targets: CountingTarget[] = [];
afterEach(async () => {
  for (const made of folders.splice(0)) rmSync(made, { recursive: true, force: true });
  for (const target of targets.splice(0)) await target.close();
});

/** A path whose folder cannot be made: a regular file stands where the folder should be. */
function pathBehindAFile(): string {
  const made = mkdtempSync(join(tmpdir(), 'eh-out-'));
  folders.push(made);
  writeFileSync(join(made, 'plain-file'), 'in the way\n');
  return join(made, 'plain-file', 'out.json');
}

/** Resolves 'listening' once the command serves, or its exit code if it refused at start. */
async function startOrRefusal(args: readonly string[]): Promise<{ outcome: number | null | 'listening'; stderr: string }> {
  const child = spawnCli(args);
  const outcome = await Promise.race([child.exit, child.waitFor(/listening on/).then(() => 'listening' as const)]);
  return { outcome, stderr: child.stderr() };
}

it.each([
  ['mock --pact-out', (file: string) => ['mock', '--port', '0', '--quiet', '--pact-out', file]],
  ['mock --coverage-report json=', (file: string) => ['mock', '--port', '0', '--quiet', '--coverage-report', `json=${file}`]],
  [
    'proxy --report json=',
    (file: string) => ['proxy', '--upstream', 'http://127.0.0.1:9', '--port', '0', '--quiet', '--report', `json=${file}`],
  ],
  ['proxy --record', (file: string) => ['proxy', '--upstream', 'http://127.0.0.1:9', '--port', '0', '--quiet', '--record', file]],
])('%s behind a regular file (no folder can be made there) is refused at start with exit 2, not after serving', async (_, args) => {
  const file = pathBehindAFile();
  const { outcome, stderr } = await startOrRefusal(args(file));
  expect(outcome).toBe(2);
  expect(stderr).toContain(file);
  expect(stderr.trim().split('\n')).toHaveLength(1);
});

// /proc takes no new file from anyone, root included: as root, access(2) says "writable" all the
// same, so only an attempt at a file there tells. The run must not start.
it.skipIf(!linux).each([
  ['--write-profile', (file: string) => ['--write-profile', file]],
  ['--report json=', (file: string) => ['--report', `json=${file}`]],
  ['--record', (file: string) => ['--record', file]],
])('conformance %s in a folder no file can be made in is refused before any request, exit 2', async (_, option) => {
  const target = await startCountingTarget();
  targets.push(target);
  const file = `/proc/eh-${process.pid}.out`;
  const child = spawnCli(['conformance', '--base-url', target.url, '--max-requests', '20', '--quiet', ...option(file)]);
  const code = await child.exit;
  expect({ code, requests: target.requests }).toEqual({ code: 2, requests: 0 });
  expect(child.stderr()).toContain(file);
});

it.skipIf(!linux)('mock --pact-out in a folder no file can be made in is refused at start, not after serving', async () => {
  const file = `/proc/eh-${process.pid}.json`;
  const { outcome, stderr } = await startOrRefusal(['mock', '--port', '0', '--quiet', '--pact-out', file]);
  expect(outcome).toBe(2);
  expect(stderr).toContain(file);
});
