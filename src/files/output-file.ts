/**
 * @module files/output-file
 * The one way the project writes a file a user named (`--pact-out`, `--coverage-report`,
 * `--report`, `--record`, `--output`, `writePact`, the runner's long request bodies):
 *
 * - at start, `checkOutputTarget` refuses a target that is a symbolic link or anything but a
 *   regular file (a FIFO, a device, a socket, a folder), with one line naming the option and
 *   what is there (docs/assumptions.md A-37). A FIFO at the target would wedge the writer in
 *   open(2) on a thread of libuv's pool, where no signal reaches it; a symlink would send the
 *   write to a file the user did not name.
 * - at the end, `writeOutputFile` writes a new temporary file in the target's folder (created
 *   with O_EXCL, so it is always a fresh regular file) and renames it over the target: a reader
 *   never sees half a file, and a link or FIFO put there after start is replaced, never followed
 *   or opened. The whole write has a time bound; past it the caller gets an error and goes on
 *   (shutdown never waits on a write for longer). A caller that must not replace a file
 *   (`replace: false`) gets the temporary file linked to the target's name instead, which fails
 *   if anything is there.
 */
import { closeSync, constants, existsSync, lstatSync, openSync, renameSync, type Stats, statSync, unlinkSync, writeSync } from 'node:fs';
import { access, link, mkdir, open, rename, unlink } from 'node:fs/promises';
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
    // Nothing there (or a folder on its path that cannot be looked at or made): the write says why, if it fails.
    return undefined;
  }
  const kind = kindOf(stats);
  return kind === undefined ? undefined : `${kind} is there`;
}

/**
 * Refuses, at start, a target the project will not write: a symlink or a non-regular file.
 * `label` names the option in the message (`--pact-out`, `--report json=FILE`).
 */
export function checkOutputTarget(options: { readonly path: string; readonly label: string }): void {
  const problem = outputTargetProblem(resolve(options.path));
  if (problem)
    throw new OutputFileError({
      shown: named(options.label, options.path),
      reason: `${problem}; only a regular file or a new one is written (never through a link or into a pipe or device); remove it or name another file`,
    });
}

/**
 * Makes `folder` and any missing parents, one level at a time from the nearest one that exists
 * (a recursive mkdir under /proc spins for good on Node 20), then proves it writable: called at
 * start, so a target in a place that cannot be written is refused before any work. Throws the
 * file system's error (its `code` says why).
 */
export async function prepareOutputFolder(folder: string): Promise<void> {
  const missing: string[] = [];
  for (let current = folder; !existsSync(current); current = dirname(current)) {
    missing.unshift(current);
    if (dirname(current) === current) break;
  }
  for (const level of missing) await mkdir(level);
  if (!statSync(folder).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
  await access(folder, constants.W_OK);
}

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
