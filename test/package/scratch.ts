/**
 * Helpers for the tests that use the project as a newcomer does: a fresh copy of the repository,
 * commands run in it or in a scratch consumer project, and a mock started by a command line
 * until its /health answers.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../src/openapi/package-root.js';

export const root = packageRoot();

/** The package tests take minutes and test the packaging, not Node: scripts/test-node-majors.sh runs the suite again on other majors without them. */
export const skipPackageTests = process.env.EH_SKIP_PACKAGE_TESTS === '1';

/** A temporary folder, removed by the returned function. */
export function scratchFolder(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * The files a clone of the work tree would hold: tracked and untracked-but-not-ignored files as
 * they are on disk (so the test checks the edits under test, not the last commit), with no
 * dist/ and no node_modules/.
 */
export async function copyWorkTree(target: string): Promise<void> {
  const { stdout } = await promisify(execFile)('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const file of stdout.split('\0')) {
    // A tracked file deleted in the work tree is not part of it.
    if (file === '' || !existsSync(join(root, file))) continue;
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(join(root, file), join(target, file));
  }
}

/** Links the checkout's node_modules into `target`, in place of a two-minute `npm ci` (see each test for why that proves the same). */
export function linkNodeModules(target: string): void {
  symlinkSync(join(root, 'node_modules'), join(target, 'node_modules'), 'dir');
}

/** The environment for npm in a test: no colour, no update check, no funding or audit calls. */
export function npmEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NO_COLOR: '1',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    ...extra,
  };
}

/** Runs a command; rejects with its output when it exits non-zero. */
export async function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await promisify(execFile)(command, [...args], {
      cwd: options.cwd,
      env: options.env ?? npmEnvironment(),
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const failure = error as Error & { stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(' ')} failed in ${options.cwd}: ${failure.message}\n${failure.stdout ?? ''}\n${failure.stderr ?? ''}`,
    );
  }
}

export interface StartedMock {
  readonly url: string;
  /** Everything the command wrote to stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * Starts a command line that runs `evidence-harness mock`, waits for its "listening on" line and
 * returns its address. The command runs in a process group of its own, so stopping it also
 * stops what npx started under it.
 */
export async function startMock(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<StartedMock> {
  const child = spawn(command, [...args], { cwd: options.cwd, env: options.env ?? npmEnvironment(), detached: true, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // Already gone.
      }
      await exited;
    }
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no "listening on" line after ${options.timeoutMs ?? 60_000} ms`)),
        options.timeoutMs ?? 60_000,
      );
      child.stdout.on('data', () => {
        const match = /listening on (http:\/\/[^\s]+)/.exec(stdout);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`exited with ${child.exitCode ?? child.signalCode}`));
      });
    });
    return { url, stderr: () => stderr, stop };
  } catch (error) {
    await stop();
    throw new Error(`${command} ${args.join(' ')}: ${(error as Error).message}\nstdout: ${stdout}\nstderr: ${stderr}`);
  }
}

/** The body of GET /health, as text. */
export async function health(url: string): Promise<string> {
  return (await fetch(`${url}/health`)).text();
}
