/**
 * Starts Prism 5 (from @stoplight/prism-cli) as a child process on a free loopback port, for
 * the second-opinion tests, and stops it by its pid.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../../src/openapi/package-root.js';

export interface RunningPrism {
  readonly url: string;
  /** Everything Prism printed, for assertions on its violation log. */
  output(): string;
  stop(): Promise<void>;
}

/** A port nothing listens on now (Prism takes a port number, not 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startPrism(options: { args: readonly string[] }): Promise<RunningPrism> {
  const port = await freePort();
  const bin = join(packageRoot(), 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');
  const child: ChildProcess = spawn(process.execPath, [bin, ...options.args, '--port', String(port), '--host', '127.0.0.1'], {
    cwd: packageRoot(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += String(chunk)));
  child.stderr?.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 25_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prism exited early:\n${output}`);
    if (/Prism is listening/.test(output)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`prism did not start within 25 s:\n${output}`);
    }
    // real-time: a child's start polled, bounded by the caller's hang bound, not by a margin.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      // real-time: a child that ignores SIGTERM is killed after 5 s; the outcome is the same.
      const timer = setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
