/**
 * The built `evidence-harness` in a child process that keeps running (mock, proxy): its output
 * as it comes, a wait for a line, and its exit code. Children are killed after each test.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { afterEach } from 'vitest';
import { executablePath } from '../../src/openapi/package-root.js';

export interface CliChild {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout, or rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  readonly exit: Promise<number | null>;
}

/** Registers the cleanup and returns `spawnCli`, whose children are SIGKILLed after each test. */
export function cliChildrenKilledAfterEach(): (args: readonly string[], options?: { cwd?: string }) => CliChild {
  const children: ChildProcessWithoutNullStreams[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return (args, options = {}) => {
    const child = spawn(process.execPath, [executablePath(), ...args], { stdio: 'pipe', cwd: options.cwd ?? process.cwd() });
    children.push(child);
    let stdout = '';
    let stderr = '';
    const waiting = new Set<() => void>();
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      for (const check of [...waiting]) check();
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const waitFor = (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout);
          if (!match) return;
          waiting.delete(check);
          resolve(match);
        };
        waiting.add(check);
        check();
        void exit.then((code) => {
          if (!waiting.has(check)) return;
          waiting.delete(check);
          reject(new Error(`exited with ${code} before printing ${pattern}: ${stdout}${stderr}`));
        });
      });
    return { child, stdout: () => stdout, stderr: () => stderr, waitFor, exit };
  };
}
