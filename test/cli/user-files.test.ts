/**
 * Files a user names on the command line and the commands read while parsing their options
 * (a report for `conformance replay` and `--rerun-failed`, `--ca`, `diff --coverage`) are read
 * through src/documents like any document: a FIFO, a folder or a device is refused at once
 * with one line and exit 2, never waited on; a missing file is named as missing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundledSpecPath } from '../../src/openapi/package-root.js';
import { fifosReleasedAfterEach } from '../support/fifo.js';
import { runMain } from '../support/run-main.js';

const posix = process.platform !== 'win32';
const makeFifo = fifosReleasedAfterEach();
let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'eh-user-files-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Exit 2 with one line on stderr holding `expected`, nothing on stdout, no stack. */
function refusedWith(result: { code: number; stdout: string; stderr: string }, expected: string | RegExp): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(expected);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stdout).toBe('');
}

const base = ['--base-url', 'http://127.0.0.1:9'];

it.skipIf(!posix)('refuses a FIFO as the report, the CA file or the coverage document at once, exit 2', async () => {
  const fifo = join(folder, 'pipe.json');
  makeFifo(fifo);
  const fifoWords = /is a FIFO \(named pipe\), not a regular file/;
  refusedWith(await runMain('conformance', 'replay', fifo), fifoWords);
  refusedWith(await runMain('conformance', ...base, '--rerun-failed', fifo), fifoWords);
  refusedWith(await runMain('conformance', ...base, '--ca', fifo), fifoWords);
  refusedWith(await runMain('diff', bundledSpecPath(), bundledSpecPath(), '--coverage', fifo), fifoWords);
});

it('refuses a folder, a device and a missing file as the report or the CA file, naming what it found', async () => {
  const dir = join(folder, 'a-folder');
  mkdirSync(dir);
  refusedWith(
    await runMain('conformance', 'replay', dir),
    /replay .*a-folder.* is a folder, not a file; give a report written by --report json=FILE/,
  );
  refusedWith(await runMain('conformance', ...base, '--ca', dir), /--ca .*a-folder.* is a folder, not a file/);
  refusedWith(await runMain('conformance', 'replay', join(folder, 'none.json')), /replay .*none\.json: file not found: .*none\.json/);
  refusedWith(await runMain('conformance', ...base, '--ca', join(folder, 'none.pem')), /--ca .*none\.pem: file not found: .*none\.pem/);
  if (posix) refusedWith(await runMain('conformance', ...base, '--ca', '/dev/zero'), /is a character device, not a regular file/);
});

it('refuses a CA file over 1 MiB and a report that is not JSON', async () => {
  const big = join(folder, 'big.pem');
  writeFileSync(big, `-----BEGIN CERTIFICATE-----\n${'A'.repeat(1024 * 1024)}\n`);
  refusedWith(await runMain('conformance', ...base, '--ca', big), /--ca .*big\.pem: .* files of at most 1\.0 MiB are read/);
  const notJson = join(folder, 'not.json');
  writeFileSync(notJson, 'plain words');
  refusedWith(
    await runMain('conformance', 'replay', notJson),
    /replay .*not\.json: not a JSON report; give a report written by --report json=FILE/,
  );
});
