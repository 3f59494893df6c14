/**
 * @module bench/child-server
 * Benchmark servers run as child processes, so the load generator (autocannon, in the bench
 * process) and the server under test never share an event loop. Every child is tracked and
 * stopped at the end, also when the bench run fails or is interrupted.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';

export interface ChildServer {
  readonly url: string;
  readonly pid: number;
  /** Milliseconds from spawn() to the first 200 on /health. */
  readonly readyMs: number;
  stop(): Promise<void>;
}

export interface StartChildOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly port: number;
  readonly cwd?: string;
  /** Give up waiting for the first 200 after this long. Default 20 s. */
  readonly timeoutMs?: number;
  /** Pause between /health polls. Default 5 ms: fine-grained enough for startup figures. */
  readonly pollMs?: number;
  /**
   * Where the server's stdout goes: 'ignore' (default, /dev/null) or 'pipe', a pipe read by a
   * `cat` process of its own, as a terminal or a log collector would read it (the bench process,
   * which runs the load generator, never reads it).
   */
  readonly stdout?: 'ignore' | 'pipe';
  /** Variables added to the server's environment. */
  readonly env?: Readonly<Record<string, string>>;
}

const running = new Set<ChildProcess>();

/** Kills every child still running (SIGKILL): the last resort on exit or interrupt. */
export function killAllChildren(): void {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  running.clear();
}

/** One GET, resolving to the status (0 when the connection fails). No keep-alive, so no socket outlives it. */
export function getStatus(url: string, timeoutMs = 1000): Promise<number> {
  return new Promise((resolve) => {
    const call = request(url, { method: 'GET', agent: false, timeout: timeoutMs }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
    });
    call.once('timeout', () => call.destroy());
    call.once('error', () => resolve(0));
    call.end();
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      running.delete(child);
      resolve();
      return;
    }
    const force = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(force);
      running.delete(child);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Spawns a server and resolves once GET /health answers 200, timing that from the spawn. */
export async function startChild(options: StartChildOptions): Promise<ChildServer> {
  const url = `http://127.0.0.1:${options.port}`;
  const started = performance.now();
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    stdio: ['ignore', options.stdout ?? 'ignore', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '', ...options.env },
  });
  running.add(child);
  if (child.stdout) {
    // cat gets its own copy of the pipe's read end and exits at its end, when the server does;
    // this process closes its copy, so that it reads nothing itself.
    const consumer = spawn('cat', [], { stdio: [child.stdout, 'ignore', 'ignore'] });
    child.stdout.destroy();
    running.add(consumer);
    consumer.once('exit', () => running.delete(consumer));
  }
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 4000) stderr += chunk.toString();
  });
  const deadline = started + (options.timeoutMs ?? 20_000);
  const pollMs = options.pollMs ?? 5;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      running.delete(child);
      throw new Error(`${options.command} ${options.args.join(' ')} exited before answering /health: ${stderr.trim()}`);
    }
    if ((await getStatus(`${url}/health`)) === 200) break;
    if (performance.now() > deadline) {
      await stopChild(child);
      throw new Error(`${options.command} ${options.args.join(' ')} did not answer /health in time: ${stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  const readyMs = performance.now() - started;
  return { url, pid: child.pid ?? -1, readyMs, stop: () => stopChild(child) };
}
