/**
 * The built `evidence-harness mock` in a child process, for tests that load or abuse it: the
 * test process is then only a client, and the server's memory can be read on its own.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { executablePath } from '../../src/openapi/package-root.js';

export interface MockProcess {
  readonly url: string;
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything the process has written to stdout so far. */
  output(): string;
  /** Resolves when the process has exited, with its exit code (null when a signal ended it) and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resident set size of the server process in bytes (Linux /proc). */
  rssBytes(): number;
  /** File descriptors the server process holds open, accepted sockets included (Linux /proc). */
  openFiles(): number;
  stop(): Promise<number | null>;
}

export interface MockProcessOptions {
  /** Pass --quiet (no request log lines). Default true. */
  readonly quiet?: boolean;
  /** Variables added to (or, when undefined, removed from) this process's environment for the server. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export async function startMockProcess(args: readonly string[] = [], options: MockProcessOptions = {}): Promise<MockProcess> {
  const quiet = options.quiet ?? true;
  const child = spawn(process.execPath, [executablePath(), 'mock', '--port', '0', ...(quiet ? ['--quiet'] : []), ...args], {
    stdio: 'pipe',
    env: { ...process.env, ...options.env },
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    void exited.then(({ code }) => reject(new Error(`the mock exited with ${code}: ${stdout}${stderr}`)));
  });
  return {
    url,
    child,
    output: () => stdout,
    exited,
    rssBytes() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kilobytes = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
      return kilobytes * 1024;
    },
    openFiles: () => readdirSync(`/proc/${child.pid}/fd`).length,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return (await exited).code;
    },
  };
}
