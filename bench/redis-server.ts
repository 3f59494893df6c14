/**
 * @module bench/redis-server
 * A real redis-server (Debian's package; .ci/run installs it when missing) for the benchmarks
 * and the tests of the shared store: on a free loopback port, with its own temporary directory, stopped by
 * the test. It can be stopped and started again on the same port and directory, for the
 * outage and restart tests.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export const redisAvailable = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0;

export interface TestRedis {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGKILL when `hard`), keeping its directory. */
  stop(options?: { hard?: boolean }): Promise<void>;
  /** Starts it again on the same port and directory (it reloads its append-only file). */
  start(): Promise<void>;
  /** Freezes the server (SIGSTOP): it accepts nothing and answers nothing, like a hung host. */
  pause(): void;
  /** Lets a frozen server go on (SIGCONT). */
  resume(): void;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

export async function startTestRedis(options: { persistence?: boolean } = {}): Promise<TestRedis> {
  const directory = mkdtempSync(join(tmpdir(), 'eh-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      directory,
      '--save',
      '',
      '--appendonly',
      options.persistence ? 'yes' : 'no',
      '--appendfsync',
      'always',
      '--daemonize',
      'no',
      '--logfile',
      '',
    ];
    const started = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start in 10 s:\n${output}`)), 10_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (/Ready to accept connections/.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      started.stdout?.on('data', onData);
      started.stderr?.on('data', onData);
      started.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`));
      });
    });
    // Keep reading, so a full pipe never blocks it.
    started.stdout?.resume();
    started.stderr?.resume();
  }

  async function stop(stopOptions: { hard?: boolean } = {}): Promise<void> {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill(stopOptions.hard ? 'SIGKILL' : 'SIGTERM');
    });
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async close() {
      await stop({ hard: true });
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
