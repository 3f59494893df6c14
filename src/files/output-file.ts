/**
 * @module files/output-file
 * The one way the project writes a file a user named (`--pact-out`, `--coverage-report`,
 * `--report`, `--record`, `--output`, `writePact`, the runner's long request bodies):
 *
 * - at start, `prepareOutputTarget` (the one start check; every output goes through it) refuses
 *   a target that is a symbolic link or anything but a regular file (a FIFO, a device, a
 *   socket, a folder), makes the target's folder, and proves that folder takes a new file by
 *   creating and removing one, with one line naming the option, the file and the reason
 *   (docs/assumptions.md A-37). A FIFO at the target would wedge the writer in open(2) on a
 *   thread of libuv's pool, where no signal reaches it; a symlink would send the write to a
 *   file the user did not name; a folder that takes no file would throw a whole run away.
 * - at the end, `writeOutputFile` writes a new temporary file in the target's folder (created
 *   with O_EXCL, so it is always a fresh regular file) and renames it over the target: a reader
 *   never sees half a file, and a link or FIFO put there after start is replaced, never followed
 *   or opened. The whole write has a time bound; past it the caller gets an error and goes on
 *   (shutdown never waits on a write for longer). A caller that must not replace a file
 *   (`replace: false`) gets the temporary file linked to the target's name instead, which fails
 *   if anything is there.
 */

import { randomBytes } from 'node:crypto';
import { closeSync, lstatSync, openSync, renameSync, type Stats, unlinkSync, writeSync } from 'node:fs';
import { link, lstat, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/** A target refused or a write that failed or took too long; `message` is one line naming the file. */
export class OutputFileError extends Error {
  override readonly name = 'OutputFileError';
  /** The reason alone ("permission denied"), for a caller that names the file its own way. */
  readonly reason: string;
  constructor(options: { readonly shown: string; readonly reason: string }) {
    super(`${options.shown}: ${options.reason}`);
    this.reason = options.reason;
  }
}

/** How long one write may take before its caller stops waiting (a report of a few MB takes milliseconds). */
export const defaultWriteTimeoutMs = 10_000;

function kindOf(stats: Stats): string | undefined {
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** What is at `path` that the project will not write over, or undefined (nothing there, or a regular file). */
export function outputTargetProblem(path: string): string | undefined {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch {
    // Nothing there (or a folder on its path that cannot be looked at): the start check's probe says why.
    return undefined;
  }
  const kind = kindOf(stats);
  return kind === undefined ? undefined : `${kind} is there`;
}

/** Refuses a symlink or a non-regular file at the target: the first half of `prepareOutputTarget`. */
function checkTargetKind(path: string, shown: string): void {
  const problem = outputTargetProblem(path);
  if (problem)
    throw new OutputFileError({
      shown,
      reason: `${problem}; only a regular file or a new one is written (never through a link or into a pipe or device); remove it or name another file`,
    });
}

/** How long the start check may take (a folder on a hung network mount must not hang the start). */
export const defaultStartCheckTimeoutMs = 5_000;

export interface PrepareOutputOptions {
  /** The file to be written (relative to the working folder). */
  readonly path: string;
  /** Names the option in messages: `--pact-out`, `--report json=`, `writePact`. */
  readonly label: string;
  /** Default `defaultStartCheckTimeoutMs`. */
  readonly timeoutMs?: number;
}

/**
 * The one start check of every output, called before any work: refuses a symlink or a
 * non-regular file at the target, makes the target's folder if missing, and proves that folder
 * takes a new file by creating and removing one there. Only an attempt tells: as root,
 * access(2) says "writable" of /proc and /sys, which take no file from anyone. Throws
 * OutputFileError with one line naming the option, the file and the reason; bounded in time.
 */
export async function prepareOutputTarget(options: PrepareOutputOptions): Promise<void> {
  const path = resolve(options.path);
  const shown = named(options.label, options.path);
  checkTargetKind(path, shown);
  await withinStartBound({ shown, timeoutMs: options.timeoutMs, work: () => folderTakesAFile(dirname(path), shown) });
}

/**
 * The same start check for an option that names a folder the command writes files into
 * (`--keep-bodies DIR`): makes it if missing and proves it takes a new file.
 */
export async function prepareOutputFolder(options: PrepareOutputOptions): Promise<void> {
  const folder = resolve(options.path);
  const shown = named(options.label, options.path);
  await withinStartBound({ shown, timeoutMs: options.timeoutMs, work: () => folderTakesAFile(folder, shown) });
}

async function withinStartBound(options: { shown: string; timeoutMs: number | undefined; work: () => Promise<void> }): Promise<void> {
  const timeoutMs = options.timeoutMs ?? defaultStartCheckTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new OutputFileError({
            shown: options.shown,
            reason: `its folder did not answer within ${timeoutMs / 1000} s; choose another path`,
          }),
        ),
      timeoutMs,
    );
    timer.unref();
  });
  try {
    await Promise.race([options.work(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Makes `folder` and any missing parents, one level at a time from the nearest one that exists
 * (a recursive mkdir under /proc spins for good on Node 20), then creates and removes a uniquely
 * named file there (O_EXCL: never an existing file, never a link followed).
 */
async function folderTakesAFile(folder: string, shown: string): Promise<void> {
  const refuse = (code: string | undefined): never => {
    throw new OutputFileError({
      shown,
      reason: `cannot write there (${startProblems[code ?? ''] ?? code ?? 'unknown error'}); choose another path`,
    });
  };
  const missing: string[] = [];
  for (let current = folder; !(await exists(current)); current = dirname(current)) {
    missing.unshift(current);
    if (dirname(current) === current) break;
  }
  try {
    for (const level of missing) await mkdir(level);
    if (!(await stat(folder)).isDirectory()) refuse('ENOTDIR');
  } catch (error) {
    if (error instanceof OutputFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    // mkdir's EEXIST / ENOTDIR: a file stands where a folder should; ENOENT: the parent takes no folder (/proc).
    refuse(code === 'ENOENT' ? 'ENOENT-folder' : code);
  }
  for (let attempt = 0; ; attempt += 1) {
    const probe = join(folder, `.evidence-harness-probe.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    let made = false;
    try {
      const handle = await open(probe, 'wx', 0o600);
      made = true;
      await handle.close();
      await unlink(probe);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A clash of random names is all but impossible; another try settles it (the file there is not ours).
      if (code === 'EEXIST' && !made && attempt < 3) continue;
      if (made) await unlink(probe).catch(() => undefined);
      refuse(code === 'ENOENT' ? 'ENOENT-file' : code);
    }
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** Plain words for what the start check meets. */
const startProblems: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  ENOTDIR: 'a file is in the way of a folder on its path',
  EEXIST: 'a file is in the way of a folder on its path',
  ELOOP: 'too many symbolic links on its path',
  ENAMETOOLONG: 'the name is too long',
  'ENOENT-folder': 'a folder on its path cannot be made there',
  'ENOENT-file': 'that folder takes no new file',
};

/** `--pact-out out.json`, `--report json=out.json`, or the path alone. */
function named(label: string | undefined, path: string): string {
  if (!label) return path;
  return label.endsWith('=') ? `${label}${path}` : `${label} ${path}`;
}

function temporaryName(path: string): string {
  const random = Math.random().toString(36).slice(2, 10);
  return join(dirname(path), `.${basename(path).slice(0, 100)}.${process.pid}.${random}.tmp`);
}

export interface WriteOutputOptions {
  readonly path: string;
  /** The content, or its pieces in order (a large HAR is written entry by entry, never joined in memory). */
  readonly data: string | Uint8Array | Iterable<string>;
  /** Names the option in messages (`--pact-out`). */
  readonly label?: string;
  /** Default `defaultWriteTimeoutMs`. */
  readonly timeoutMs?: number;
  /**
   * False: never replace a file already at `path` (`profile --init --out` without --force). The
   * temporary file is then given the target's name with link(2), which fails if anything is
   * there, instead of renamed over it: no window between a look and the write. Default true.
   */
  readonly replace?: boolean;
}

/**
 * Writes `data` to `path` through a temporary file renamed over it; makes the folder if
 * missing. Returns the absolute path. Throws OutputFileError when the write fails or takes
 * longer than `timeoutMs` (the temporary file is then removed and the target left as it was).
 */
export async function writeOutputFile(options: WriteOutputOptions): Promise<string> {
  const path = resolve(options.path);
  const shown = named(options.label, options.path);
  const timeoutMs = options.timeoutMs ?? defaultWriteTimeoutMs;
  // No look at the target here: a link or FIFO put there since start is replaced by the rename,
  // never opened or followed, and the file the user asked for is not lost.
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new OutputFileError({ shown, reason: `not written within ${timeoutMs / 1000} s; gave up` }));
    }, timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([
      writeByRename({ path, data: options.data, signal: controller.signal, shown, replace: options.replace ?? true }),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function writeByRename(options: {
  path: string;
  data: string | Uint8Array | Iterable<string>;
  signal: AbortSignal;
  shown: string;
  replace: boolean;
}): Promise<string> {
  const { path } = options;
  const temporary = temporaryName(path);
  try {
    await mkdir(dirname(path), { recursive: true });
    const handle = await open(temporary, 'wx', 0o666);
    try {
      const { data, signal } = options;
      if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data, { signal });
      else
        for (const piece of data) {
          signal.throwIfAborted();
          await handle.write(piece);
        }
    } finally {
      await handle.close();
    }
    options.signal.throwIfAborted();
    if (options.replace) await rename(temporary, path);
    else {
      try {
        await link(temporary, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST')
          throw new OutputFileError({ shown: options.shown, reason: 'a file is already there; it is kept' });
        throw error;
      }
      await unlink(temporary);
    }
    return path;
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    if (error instanceof OutputFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).name;
    throw new OutputFileError({ shown: options.shown, reason: `cannot write it (${writeProblems[code] ?? code})` });
  }
}

/** The few write errors a person can act on, in words. */
const writeProblems: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'a folder is there',
  ENOTDIR: 'a file is in the way of a folder on its path',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
  // mkdir's answer when a file stands where a folder should (a clash of temporary names is all but impossible).
  EEXIST: 'a file is in the way of a folder on its path',
  AbortError: 'stopped: it took too long',
};

/**
 * The same write for synchronous callers (the runner's long request bodies, written as a run goes):
 * a fresh temporary file renamed over the target. Throws as `writeOutputFile`, with no time bound
 * (a regular file the process creates itself cannot block).
 */
export function writeOutputFileSync(options: {
  readonly path: string;
  readonly data: string | Uint8Array;
  readonly label?: string;
}): string {
  const path = resolve(options.path);
  const shown = named(options.label, options.path);
  const temporary = temporaryName(path);
  try {
    const fd = openSync(temporary, 'wx', 0o666);
    try {
      const bytes = typeof options.data === 'string' ? Buffer.from(options.data) : options.data;
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
    return path;
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // nothing was created
    }
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new OutputFileError({ shown, reason: `cannot write it (${writeProblems[code] ?? code})` });
  }
}
