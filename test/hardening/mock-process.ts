/**
 * The built `evidence-harness mock` in a child process, for tests that load or abuse it: the
 * test process is then only a client, and the server's memory can be read on its own.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { executablePath } from '../../src/openapi/package-root.js';

export interface MockProcess {
  readonly url: string;
  readonly child: ChildProcessWithoutNullStreams;
  /** Resident set size of the server process in bytes (Linux /proc). */
  rssBytes(): number;
  stop(): Promise<number | null>;
}

export async function startMockProcess(args: readonly string[] = []): Promise<MockProcess> {
  const child = spawn(process.execPath, [executablePath(), 'mock', '--port', '0', '--quiet', ...args], {
    stdio: 'pipe',
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    void exited.then((code) => reject(new Error(`the mock exited with ${code}: ${output}`)));
  });
  return {
    url,
    child,
    rssBytes() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kilobytes = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
      return kilobytes * 1024;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
