/**
 * The one writer of files a user names (src/files/output-file.ts, docs/assumptions.md A-37):
 * a symlink or a non-regular file at the target is refused at start by every option that writes
 * one, with one line and exit 2, and the file a link points at is never touched; the write itself
 * goes through a temporary file renamed over the target, so what is put there later (a link, a
 * FIFO) is replaced, never followed or opened.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, expect, it, vi } from 'vitest';
import { OutputFileError, prepareOutputTarget, writeOutputFile, writeOutputFileSync } from '../../src/files/output-file.js';
import { fifosReleasedAfterEach } from '../support/fifo.js';
import { runMain } from '../support/run-main.js';
import { inTime } from '../support/time-limits.js';

const makeFifo = fifosReleasedAfterEach();
let folder: string;
let elsewhere: string;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'eh-output-file-'));
  elsewhere = join(folder, 'elsewhere.txt');
  writeFileSync(elsewhere, 'keep me\n');
});

/** A target of each kind the writers refuse, with the words the message uses for it. */
function hostileTargets(): { name: string; path: string; says: RegExp }[] {
  const link = join(folder, 'link.json');
  symlinkSync(elsewhere, link);
  const fifo = join(folder, 'fifo.json');
  makeFifo(fifo);
  const directory = join(folder, 'a-folder.json');
  mkdirSync(directory);
  return [
    { name: 'a symlink', path: link, says: /a symbolic link is there/ },
    { name: 'a FIFO', path: fifo, says: /a named pipe \(FIFO\) is there/ },
    { name: 'a folder', path: directory, says: /a folder is there/ },
    { name: 'a device', path: '/dev/null', says: /a device is there/ },
  ];
}

it('refuses a symlink, a FIFO, a folder and a device at the target, and passes a new or regular file', async () => {
  for (const target of hostileTargets()) {
    await expect(prepareOutputTarget({ path: target.path, label: '--pact-out' }), target.name).rejects.toThrow(target.says);
    await expect(prepareOutputTarget({ path: target.path, label: '--pact-out' })).rejects.toThrow(OutputFileError);
  }
  await expect(prepareOutputTarget({ path: join(folder, 'new', 'pact.json'), label: '--pact-out' })).resolves.toBeUndefined();
  await expect(prepareOutputTarget({ path: elsewhere, label: '--pact-out' })).resolves.toBeUndefined();
});

it('makes a missing folder at start and leaves no file of its probe behind', async () => {
  await prepareOutputTarget({ path: join(folder, 'deep', 'er', 'pact.json'), label: '--pact-out' });
  expect(lstatSync(join(folder, 'deep', 'er')).isDirectory()).toBe(true);
  expect(readdirSync(join(folder, 'deep', 'er'))).toEqual([]);
  expect(readFileSync(elsewhere, 'utf8')).toBe('keep me\n');
});

it('refuses at start, in one line naming the option and the file, a file standing where a folder should be', async () => {
  const target = join(elsewhere, 'deeper', 'pact.json');
  const refused = prepareOutputTarget({ path: target, label: '--pact-out' });
  await expect(refused).rejects.toThrow(OutputFileError);
  await expect(refused).rejects.toThrow(
    `--pact-out ${target}: cannot write there (a file is in the way of a folder on its path); choose another path`,
  );
});

// As root, access(2) calls /proc and /sys writable; only an attempt at a new file there tells.
it.skipIf(process.platform !== 'linux')('refuses at start a folder that takes no new file, root or not (/proc, /sys)', async () => {
  await expect(prepareOutputTarget({ path: '/proc/eh-out.yaml', label: '--out' })).rejects.toThrow(
    '--out /proc/eh-out.yaml: cannot write there (that folder takes no new file); choose another path',
  );
  await expect(prepareOutputTarget({ path: '/proc/eh-a/eh-b/out.yaml', label: '--out' })).rejects.toThrow(
    /^--out \/proc\/eh-a\/eh-b\/out\.yaml: cannot write there \(a folder on its path cannot be made there\)/,
  );
  await expect(prepareOutputTarget({ path: '/sys/eh-new', label: '--record' })).rejects.toThrow(
    /^--record \/sys\/eh-new: cannot write there \(permission denied\)/,
  );
});

it('replaces a symlink or a FIFO put at the target after start, without following or opening it', async () => {
  const link = join(folder, 'pact.json');
  symlinkSync(elsewhere, link);
  const fifo = join(folder, 'coverage.json');
  makeFifo(fifo);
  // Opening the FIFO to write would wait for a reader for ever: the await returning proves it was not opened.
  await writeOutputFile({ path: link, data: '{"pact":true}\n' });
  await writeOutputFile({ path: fifo, data: ['{"cover', 'age":1}\n'] });
  expect(readFileSync(elsewhere, 'utf8')).toBe('keep me\n');
  expect(lstatSync(link).isFile()).toBe(true);
  expect(readFileSync(link, 'utf8')).toBe('{"pact":true}\n');
  expect(lstatSync(fifo).isFile()).toBe(true);
  expect(readFileSync(fifo, 'utf8')).toBe('{"coverage":1}\n');
  expect(readdirSync(folder).sort()).toEqual(['coverage.json', 'elsewhere.txt', 'pact.json']);
});

it('makes the folder, writes whole files, and says in one line why a write failed', async () => {
  const path = join(folder, 'deep', 'er', 'report.json');
  expect(await writeOutputFile({ path, data: 'one\n' })).toBe(path);
  writeOutputFileSync({ path, data: 'two\n' });
  expect(readFileSync(path, 'utf8')).toBe('two\n');
  const directory = join(folder, 'taken');
  mkdirSync(directory);
  writeFileSync(join(directory, 'inside'), 'x');
  const failed = writeOutputFile({ path: directory, data: 'x', label: '--output' });
  await expect(failed).rejects.toThrow(OutputFileError);
  await expect(failed).rejects.toThrow(/^--output .*taken: cannot write it \(/);
  expect(readdirSync(folder).filter((name) => name.endsWith('.tmp'))).toEqual([]);
});

it('gives up a write that outlasts its bound, leaving the target as it was and no temporary file', async () => {
  const path = join(folder, 'slow.har');
  writeFileSync(path, 'old\n');
  // 200,000 pieces, each its own write(2) through the thread pool: far more than 1 ms of work.
  const pieces = Array.from({ length: 200_000 }, () => '0123456789');
  // real-time: 1 ms against far more work; a busy machine only makes the write slower, so the bound surely passes.
  await expect(writeOutputFile({ path, data: pieces, label: '--record', timeoutMs: 1 })).rejects.toThrow(
    /^--record .*slow\.har: not written within 0\.001 s; gave up$/,
  );
  await vi.waitFor(() => expect(readdirSync(folder).filter((name) => name.endsWith('.tmp'))).toEqual([]), { timeout: inTime() });
  expect(readFileSync(path, 'utf8')).toBe('old\n');
});

/** Every option that writes a file the user names, as a command line with FILE in it. */
const writers: { command: string; option: string; argv: (file: string) => string[] }[] = [
  { command: 'mock', option: '--pact-out', argv: (file) => ['mock', '--port', '0', '--pact-out', file] },
  { command: 'mock', option: '--coverage-report json=', argv: (file) => ['mock', '--port', '0', '--coverage-report', `json=${file}`] },
  { command: 'diff', option: '--output', argv: (file) => ['diff', 'spec/openapi.yaml', 'spec/openapi.yaml', '--output', file] },
  {
    command: 'conformance',
    option: '--report json=',
    argv: (file) => ['conformance', '--base-url', 'http://127.0.0.1:9', '--report', `json=${file}`],
  },
  { command: 'conformance', option: '--record', argv: (file) => ['conformance', '--base-url', 'http://127.0.0.1:9', '--record', file] },
  {
    command: 'proxy',
    option: '--report html=',
    argv: (file) => ['proxy', '--upstream', 'http://127.0.0.1:9', '--port', '0', '--report', `html=${file}`],
  },
  { command: 'proxy', option: '--record', argv: (file) => ['proxy', '--upstream', 'http://127.0.0.1:9', '--port', '0', '--record', file] },
];

it.each(writers)('$command $option refuses a symlink or a FIFO at start with one line and exit 2', async ({ option, argv }) => {
  for (const target of hostileTargets().slice(0, 2)) {
    const result = await runMain(...argv(target.path));
    expect([result.code, target.name]).toEqual([2, target.name]);
    expect(result.stderr).toContain(`${option}${option.endsWith('=') ? '' : ' '}${target.path}: `);
    expect(result.stderr).toMatch(target.says);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).not.toMatch(/listening on/);
  }
  expect(readFileSync(elsewhere, 'utf8')).toBe('keep me\n');
});
