/**
 * `mock --pact-out` when something is put at the target while the mock runs (the built CLI):
 * a FIFO there once wedged the stop in open(2), and two SIGTERMs did not end the mock. The pact
 * now goes to a temporary file renamed over the target, so the FIFO (or a link) is replaced,
 * never opened or followed, and the stop ends with the pact written.
 */
import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { fifosReleasedAfterEach } from '../support/fifo.js';

const spawnCli = cliChildrenKilledAfterEach();
const makeFifo = fifosReleasedAfterEach();

it('stops with the pact written when a FIFO and a symlink were put at the targets after start', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-pact-out-stop-'));
  const elsewhere = join(folder, 'elsewhere.json');
  writeFileSync(elsewhere, 'keep me\n');
  const mock = spawnCli(['mock', '--port', '0', '--quiet', '--pact-out', 'web.json', '--coverage-report', 'json=coverage.json'], {
    cwd: folder,
  });
  const [, url] = await mock.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  expect((await fetch(`${url}/health`)).status).toBe(200);
  makeFifo(join(folder, 'web.json'));
  symlinkSync(elsewhere, join(folder, 'coverage.json'));
  mock.child.kill('SIGTERM');
  // A stop that waited on the FIFO would never exit: the test's own timeout is the bound here.
  expect(await mock.exit).toBe(0);
  expect(lstatSync(join(folder, 'web.json')).isFile()).toBe(true);
  expect(JSON.parse(readFileSync(join(folder, 'web.json'), 'utf8')).metadata.pactSpecification.version).toBe('4.0');
  expect(lstatSync(join(folder, 'coverage.json')).isFile()).toBe(true);
  expect(readFileSync(elsewhere, 'utf8')).toBe('keep me\n');
  rmSync(folder, { recursive: true, force: true });
}, 30_000);
