/**
 * @module documents/regular-file
 * Reads a file the mock reads on the user's behalf (`--scenario`, `--watch`, `--config`) the one
 * safe way (docs/assumptions.md A-27): a regular file only, never a FIFO, a device, a socket or
 * a folder; opened so that the open itself cannot block, then checked on the opened descriptor
 * (checking the path and then opening it would leave a window for a swap); at the path it led to
 * when it was first read, so a symbolic link swapped in later is refused; and bounded in size.
 * `readRegularFileSync` holds to the same rules for a file read while a command's options are
 * parsed (`--ca`, a report to replay, `diff --coverage`): a regular file's read never blocks, and
 * the open cannot wait on a FIFO, so the synchronous form costs nothing the async one would save.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, type Stats } from 'node:fs';
import { lstat, open, realpath } from 'node:fs/promises';
import { resolve } from 'node:path';

/**
 * Largest file read: 4 MiB. A scenario is at most 256 KiB once parsed (scenarioLimits), and its
 * YAML with comments and indentation is rarely more than a few times that; a config file is far
 * smaller. Past this, the file is not what the user meant to give.
 */
export const maxUserFileBytes = 4 * 1024 * 1024;

/** Why a file was not read: gone, not permitted, not a regular file, led elsewhere, or too large. */
export type UserFileProblem = 'missing' | 'unreadable' | 'not-regular' | 'moved' | 'too-large';

/** A file the mock refused or could not read; the message names the file and what was found. */
export class UserFileError extends Error {
  override readonly name = 'UserFileError';
  readonly problem: UserFileProblem;
  readonly path: string;
  constructor(options: { readonly path: string; readonly problem: UserFileProblem; readonly message: string }) {
    super(options.message);
    this.path = options.path;
    this.problem = options.problem;
  }
}

export interface RegularFileText {
  readonly text: string;
  /** Where the path led (symbolic links resolved): pass it as `resolvedPath` to later reads to pin it. */
  readonly resolvedPath: string;
}

/** What a file system entry is, in words, for messages. */
export function describeEntry(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a file';
}

/** Why an entry that is not a regular file is refused, after `where` (the folder keeps its old wording). */
export function notRegularProblem(stats: Stats): string {
  return stats.isDirectory() ? 'is a folder, not a file' : `is ${describeEntry(stats)}, not a regular file`;
}

function sizeInWords(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${bytes} bytes`;
}

/**
 * O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer, in a thread of libuv's
 * pool that the process then waits for at exit, so even SIGTERM could not end it. O_NOFOLLOW:
 * the path opened has just been resolved, so a link found there now was swapped in. Both are 0
 * where the platform has none (Windows has no FIFOs or such links to guard against).
 */
const openFlags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** A checked open can lose a race with an editor's save by rename; it is tried again this often. */
const attempts = 3;

interface FileRead {
  readonly path: string;
  readonly resolvedPath?: string;
  readonly maxBytes?: number;
}

/** What both readers share: the messages, the error mapping and the checks on what was found. */
function fileRules(options: FileRead) {
  const { path } = options;
  const maxBytes = options.maxBytes ?? maxUserFileBytes;
  const where = `${path} (resolved to ${resolve(path)})`;
  const refuse = (problem: UserFileProblem, message: string) => new UserFileError({ path, problem, message });
  const failed = (error: unknown): UserFileError => {
    if (error instanceof UserFileError) return error;
    const code = (error as NodeJS.ErrnoException).code;
    switch (code) {
      case 'ENOENT':
      case 'ENOTDIR':
        return refuse('missing', `file not found: ${where}`);
      case 'EACCES':
      case 'EPERM':
        return refuse('unreadable', `${where} cannot be read: permission denied (${code})`);
      case 'ELOOP':
        return refuse('not-regular', `${where} is a symbolic link that was put in place while it was being read, or a loop of links`);
      default:
        return refuse('unreadable', `${where} cannot be read: ${code ?? (error as Error).message}`);
    }
  };
  /** The entry the path leads to, checked before it is opened. */
  const checkSeen = (resolvedPath: string, seen: Stats): void => {
    if (options.resolvedPath !== undefined && resolvedPath !== options.resolvedPath) {
      throw refuse(
        'moved',
        `${path} now leads to ${resolvedPath}, not to ${options.resolvedPath} as when it was first read (a symbolic link was put in its place or changed)`,
      );
    }
    if (!seen.isFile()) throw refuse('not-regular', `${where} ${notRegularProblem(seen)}`);
    if (seen.size > maxBytes)
      throw refuse('too-large', `${where} is ${sizeInWords(seen.size)}; files of at most ${sizeInWords(maxBytes)} are read`);
  };
  /** The opened descriptor: still a regular file, and still the one looked at (false: replaced, try again). */
  const checkOpened = (opened: Stats, seen: Stats, attempt: number): boolean => {
    if (!opened.isFile()) throw refuse('not-regular', `${where} ${notRegularProblem(opened)}`);
    if (opened.dev === seen.dev && opened.ino === seen.ino) return true;
    // Replaced between the look and the open: an editor's save by rename, most likely.
    if (attempt < attempts) return false;
    throw refuse('moved', `${where} was replaced while it was being read, ${attempts} times in a row`);
  };
  const tooLarge = () => refuse('too-large', `${where} is more than ${sizeInWords(maxBytes)}; files of at most that are read`);
  return { maxBytes, failed, checkSeen, checkOpened, tooLarge };
}

/**
 * Reads `path` as UTF-8 text if it is a regular file of at most `maxBytes`, leading to
 * `resolvedPath` when one is given (the `resolvedPath` of the first read). Throws UserFileError
 * otherwise; nothing here waits on a FIFO or a device.
 */
export async function readRegularFile(options: FileRead): Promise<RegularFileText> {
  const rules = fileRules(options);
  for (let attempt = 1; ; attempt += 1) {
    let resolvedPath: string;
    let seen: Stats;
    try {
      resolvedPath = await realpath(options.path);
      seen = await lstat(resolvedPath);
    } catch (error) {
      throw rules.failed(error);
    }
    rules.checkSeen(resolvedPath, seen);
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(resolvedPath, openFlags);
    } catch (error) {
      throw rules.failed(error);
    }
    try {
      if (!rules.checkOpened(await handle.stat(), seen, attempt)) continue;
      return { text: await readCapped({ handle, maxBytes: rules.maxBytes, tooLarge: rules.tooLarge }), resolvedPath };
    } catch (error) {
      throw rules.failed(error);
    } finally {
      await handle.close();
    }
  }
}

/**
 * `readRegularFile`, synchronously: for a file named by an option and read while the options are
 * parsed. The same rules and messages; throws UserFileError.
 */
export function readRegularFileSync(options: FileRead): RegularFileText {
  const rules = fileRules(options);
  for (let attempt = 1; ; attempt += 1) {
    let resolvedPath: string;
    let seen: Stats;
    try {
      resolvedPath = realpathSync(options.path);
      seen = lstatSync(resolvedPath);
    } catch (error) {
      throw rules.failed(error);
    }
    rules.checkSeen(resolvedPath, seen);
    let descriptor: number;
    try {
      descriptor = openSync(resolvedPath, openFlags);
    } catch (error) {
      throw rules.failed(error);
    }
    try {
      if (!rules.checkOpened(fstatSync(descriptor), seen, attempt)) continue;
      const chunks: Buffer[] = [];
      let total = 0;
      for (;;) {
        const chunk = Buffer.allocUnsafe(64 * 1024);
        const bytesRead = readSync(descriptor, chunk, 0, chunk.length, null);
        if (bytesRead === 0) break;
        total += bytesRead;
        if (total > rules.maxBytes) throw rules.tooLarge();
        chunks.push(chunk.subarray(0, bytesRead));
      }
      return { text: Buffer.concat(chunks, total).toString('utf8'), resolvedPath };
    } catch (error) {
      throw rules.failed(error);
    } finally {
      closeSync(descriptor);
    }
  }
}

/** The whole file, refused once it passes `maxBytes` (it may have grown since it was measured). */
async function readCapped(options: {
  handle: Awaited<ReturnType<typeof open>>;
  maxBytes: number;
  tooLarge: () => UserFileError;
}): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    const { bytesRead } = await options.handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > options.maxBytes) throw options.tooLarge();
    chunks.push(chunk.subarray(0, bytesRead));
  }
  return Buffer.concat(chunks, total).toString('utf8');
}
