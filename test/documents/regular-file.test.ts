/**
 * readRegularFile (docs/assumptions.md A-27): a file the mock reads on the user's behalf is a
 * regular file, bounded, at the place its path led to when first read; nothing else is opened
 * for reading, and nothing waits on a FIFO.
 */
import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { readRegularFile, readRegularFileSync, UserFileError } from '../../src/documents/regular-file.js';
import { fifosReleasedAfterEach } from '../support/fifo.js';

const posix = process.platform !== 'win32';
const makeFifo = fifosReleasedAfterEach();
const folders: string[] = [];
afterEach(() => {
  for (const made of folders.splice(0)) rmSync(made, { recursive: true, force: true });
});

function folder(): string {
  const made = mkdtempSync(join(tmpdir(), 'eh-regular-file-'));
  folders.push(made);
  return made;
}

async function refusal(read: Promise<unknown>): Promise<UserFileError> {
  const error = await read.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(UserFileError);
  return error as UserFileError;
}

it('reads a regular file and gives the path it led to', async () => {
  const file = join(folder(), 'scenario.yaml');
  writeFileSync(file, 'name: plain\n');
  expect(await readRegularFile({ path: file })).toEqual({ text: 'name: plain\n', resolvedPath: file });
});

it.skipIf(!posix)('refuses a FIFO at once, without waiting for a writer', async () => {
  const fifo = join(folder(), 'scenario.yaml');
  makeFifo(fifo);
  const error = await refusal(readRegularFile({ path: fifo }));
  expect(error.problem).toBe('not-regular');
  expect(error.message).toBe(`${fifo} (resolved to ${fifo}) is a FIFO (named pipe), not a regular file`);
});

it('refuses a folder and a character device', async () => {
  const dir = join(folder(), 'scenario.yaml');
  mkdirSync(dir);
  expect((await refusal(readRegularFile({ path: dir }))).message).toBe(`${dir} (resolved to ${dir}) is a folder, not a file`);
  if (posix) expect((await refusal(readRegularFile({ path: '/dev/null' }))).message).toContain('is a character device, not a regular file');
});

it('refuses a file larger than the bound, before and while reading it', async () => {
  const file = join(folder(), 'big.yaml');
  writeFileSync(file, 'x'.repeat(2048));
  const error = await refusal(readRegularFile({ path: file, maxBytes: 1024 }));
  expect(error.problem).toBe('too-large');
  expect(error.message).toContain('is 2048 bytes; files of at most 1024 bytes are read');
  expect((await readRegularFile({ path: file, maxBytes: 2048 })).text).toHaveLength(2048);
});

it.skipIf(!posix)('follows a symbolic link given at start, then refuses a link put in place of the file or pointed elsewhere', async () => {
  const dir = folder();
  const target = join(dir, 'real.yaml');
  const secret = join(dir, 'secret.txt');
  const link = join(dir, 'link.yaml');
  writeFileSync(target, 'name: real\n');
  writeFileSync(secret, 'SECRET-7f3a9c1e\n');
  chmodSync(secret, 0o600);
  symlinkSync(target, link);
  const first = await readRegularFile({ path: link });
  expect(first).toEqual({ text: 'name: real\n', resolvedPath: target });

  // The target saved by rename (as editors do) is still the file it led to.
  writeFileSync(`${target}.tmp`, 'name: saved\n');
  renameSync(`${target}.tmp`, target);
  expect((await readRegularFile({ path: link, resolvedPath: first.resolvedPath })).text).toBe('name: saved\n');

  // The link pointed at another file: refused, and the other file is not read.
  rmSync(link);
  symlinkSync(secret, link);
  const moved = await refusal(readRegularFile({ path: link, resolvedPath: first.resolvedPath }));
  expect(moved.problem).toBe('moved');
  expect(moved.message).toBe(
    `${link} now leads to ${secret}, not to ${target} as when it was first read (a symbolic link was put in its place or changed)`,
  );

  // A plain file given at start, later replaced by a link: refused the same way.
  rmSync(target);
  symlinkSync(secret, target);
  const swapped = await refusal(readRegularFile({ path: target, resolvedPath: target }));
  expect(swapped.problem).toBe('moved');
  expect(swapped.message).not.toContain('SECRET');
});

it('says a missing file is missing', async () => {
  const file = join(folder(), 'gone.yaml');
  const error = await refusal(readRegularFile({ path: file }));
  expect(error.problem).toBe('missing');
  expect(error.message).toBe(`file not found: ${file} (resolved to ${file})`);
});

function syncRefusal(read: () => unknown): UserFileError {
  let error: unknown;
  try {
    read();
  } catch (failure) {
    error = failure;
  }
  expect(error).toBeInstanceOf(UserFileError);
  return error as UserFileError;
}

it('reads synchronously by the same rules: a regular file read, a FIFO, a folder, a device and a large file refused', () => {
  const made = folder();
  const file = join(made, 'ca.pem');
  writeFileSync(file, 'pem\n');
  expect(readRegularFileSync({ path: file })).toEqual({ text: 'pem\n', resolvedPath: file });
  if (posix) {
    const fifo = join(made, 'fifo.pem');
    makeFifo(fifo);
    // Returns at once: the open cannot wait for a writer.
    expect(syncRefusal(() => readRegularFileSync({ path: fifo })).message).toBe(
      `${fifo} (resolved to ${fifo}) is a FIFO (named pipe), not a regular file`,
    );
    expect(syncRefusal(() => readRegularFileSync({ path: '/dev/zero' })).message).toContain('is a character device, not a regular file');
  }
  expect(syncRefusal(() => readRegularFileSync({ path: made })).message).toBe(`${made} (resolved to ${made}) is a folder, not a file`);
  const missing = syncRefusal(() => readRegularFileSync({ path: join(made, 'none.pem') }));
  expect(missing.problem).toBe('missing');
  writeFileSync(file, 'x'.repeat(2048));
  const large = syncRefusal(() => readRegularFileSync({ path: file, maxBytes: 1024 }));
  expect(large.problem).toBe('too-large');
  expect(large.message).toBe(`${file} (resolved to ${file}) is 2048 bytes; files of at most 1024 bytes are read`);
});
