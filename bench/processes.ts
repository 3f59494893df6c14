/**
 * @module bench/processes
 * Every server the bench measures runs in a child process of its own, so the load generator
 * (autocannon, in the bench process) never shares its event loop. Every child is tracked and
 * killed on exit or interrupt. CPU time is read from /proc/PID/stat: on two shared cores it is
 * the figure the load generator does not bound.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { executablePath, packageRoot } from '../src/openapi/package-root.js';
import { freePort } from './free-port.js';

/** How to start one server on `port`, and how a person would type it. */
export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** 'pipe': stdout goes to a `cat` of its own, as a terminal or log collector drains it. */
  readonly stdout?: 'ignore' | 'pipe';
  readonly display: string;
}

export interface ChildServer {
  readonly url: string;
  readonly pid: number;
  /** Milliseconds from spawn() to the first 200 on /health. */
  readonly readyMs: number;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

export function killAllChildren(): void {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  running.clear();
}

/** One GET without keep-alive, so no socket outlives it; 0 when the connection fails. */
export function getStatus(url: string, timeoutMs = 1000): Promise<number> {
  return new Promise((resolve) => {
    const call = request(url, { agent: false, timeout: timeoutMs }, (response) => {
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
    const done = () => {
      running.delete(child);
      resolve();
    };
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const force = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(force);
      done();
    });
    child.kill('SIGTERM');
  });
}

/** Spawns `launch` and resolves once GET /health answers 200 (polled every 5 ms, fine enough for start-up figures). */
export async function startChild(launch: Launch, port: number, timeoutMs = 30_000): Promise<ChildServer> {
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(launch.command, [...launch.args], {
    cwd: packageRoot(),
    stdio: ['ignore', launch.stdout ?? 'ignore', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '', ...launch.env },
  });
  running.add(child);
  if (child.stdout) {
    // cat holds its own copy of the pipe and exits with the server; this process reads nothing.
    const drain = spawn('cat', [], { stdio: [child.stdout, 'ignore', 'ignore'] });
    child.stdout.destroy();
    running.add(drain);
    drain.once('exit', () => running.delete(drain));
  }
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 4000) stderr += chunk.toString();
  });
  const deadline = started + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      running.delete(child);
      throw new Error(`${launch.display} exited before answering /health: ${stderr.trim()}`);
    }
    if ((await getStatus(`${url}/health`)) === 200) break;
    if (performance.now() > deadline) {
      await stopChild(child);
      throw new Error(`${launch.display} did not answer /health in time: ${stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return { url, pid: child.pid ?? -1, readyMs: performance.now() - started, stop: () => stopChild(child) };
}

export async function startServer(launchOn: (port: number) => Launch): Promise<ChildServer> {
  const port = await freePort();
  return startChild(launchOn(port), port);
}

function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * Milliseconds of CPU (user + system) used by `pid` and every process below it (Prism's
 * multiprocess mode serves from a forked worker); undefined without /proc. /proc counts in
 * USER_HZ, which the kernel's ABI fixes at 100 a second.
 */
export function processCpuMs(pid: number): number | undefined {
  const own = statFields(pid);
  if (!own) return undefined;
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const parent = Number(statFields(Number(name))?.[1]);
    if (Number.isFinite(parent)) parents.set(parent, [...(parents.get(parent) ?? []), Number(name)]);
  }
  let ticks = 0;
  const pending = [pid];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const fields = next === pid ? own : statFields(next);
    if (fields) ticks += Number(fields[11]) + Number(fields[12]);
    pending.push(...(parents.get(next) ?? []));
  }
  return (ticks * 1000) / 100;
}

const prismEntry = join(packageRoot(), 'node_modules/@stoplight/prism-cli/dist/index.js');
const spec = join(packageRoot(), 'spec/openapi.yaml');
export const prismVersion = (
  JSON.parse(readFileSync(join(packageRoot(), 'node_modules/@stoplight/prism-cli/package.json'), 'utf8')) as { version: string }
).version;

export type ServerName = 'mock' | 'mock-quiet' | 'bare' | 'bare-work' | 'prism' | 'prism-multiprocess' | 'prism-silent';

/** The synchronous work per request of `bare-work`, in µs. */
export const bareWorkUs = 10;

/** A launch of `script args` with node; a logged server's stdout is drained through a pipe. */
function node(script: string, args: readonly string[], display: string, logged: boolean) {
  return (port: number): Launch => ({
    command: process.execPath,
    args: [script, ...args, ...(script === prismEntry ? ['-p', String(port), '-h', '127.0.0.1'] : ['--port', String(port)])],
    ...(logged ? { stdout: 'pipe' as const } : {}),
    display: `${display}${logged ? ' | cat' : ''}`,
  });
}

/** The servers, each as a person starts it; the mock from the executable package.json's "bin" runs. */
export const servers: Record<ServerName, (port: number) => Launch> = {
  mock: node(executablePath(), ['mock'], 'evidence-harness mock --port PORT', true),
  'mock-quiet': node(executablePath(), ['mock', '--quiet'], 'evidence-harness mock --quiet --port PORT', false),
  bare: node(join(packageRoot(), 'dist/bench/children/bare-server.js'), [], 'node dist/bench/children/bare-server.js --port PORT', false),
  'bare-work': node(
    join(packageRoot(), 'dist/bench/children/bare-server.js'),
    ['--work-us', String(bareWorkUs)],
    `node dist/bench/children/bare-server.js --work-us ${bareWorkUs} --port PORT`,
    false,
  ),
  prism: node(prismEntry, ['mock', spec], 'prism mock spec/openapi.yaml -p PORT -h 127.0.0.1', true),
  'prism-multiprocess': node(
    prismEntry,
    ['mock', spec, '--multiprocess'],
    'prism mock spec/openapi.yaml --multiprocess -p PORT -h 127.0.0.1',
    true,
  ),
  'prism-silent': node(
    prismEntry,
    ['mock', spec, '-v', 'silent', '--no-multiprocess'],
    'prism mock spec/openapi.yaml -v silent --no-multiprocess -p PORT -h 127.0.0.1',
    false,
  ),
};

/** `prism proxy` in front of `upstream`, in its fastest configuration for a rate. */
export const prismProxy = (upstream: string) =>
  node(
    prismEntry,
    ['proxy', spec, upstream, '-v', 'silent', '--no-multiprocess'],
    'prism proxy spec/openapi.yaml MOCK -v silent --no-multiprocess -p PORT -h 127.0.0.1',
    false,
  );

export const prismConfigurations: readonly ServerName[] = ['prism', 'prism-multiprocess', 'prism-silent'];

export interface NodeRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly wallMs: number;
}

/** Runs a Node script in a process of its own to completion (MSW patches its global fetch; RSS and wall time are per process). */
export function runNode(options: { args: readonly string[]; timeoutMs: number }): Promise<NodeRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...options.args], {
      cwd: packageRoot(),
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 20_000) stderr += chunk.toString();
    });
    const limit = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(limit);
      resolve({ code, stdout, stderr, wallMs: performance.now() - started });
    });
  });
}

/** The JSON object a bench child prints as its last line. */
export function lastJsonLine<T>(run: NodeRun): T {
  try {
    return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as T;
  } catch {
    throw new Error(`bench child exited ${run.code} without a result: ${run.stderr.slice(0, 2000)}`);
  }
}
