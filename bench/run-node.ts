/**
 * @module bench/run-node
 * Runs a bench script in a child Node process to completion, with a time limit, and returns
 * what it printed. Used for measurements that must own their whole process: MSW (it patches
 * the global fetch), memory (RSS is per process) and the conformance runner (its wall time).
 */
import { spawn } from 'node:child_process';
import { packageRoot } from '../src/openapi/package-root.js';

export interface NodeRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly wallMs: number;
}

export function runNode(options: { args: readonly string[]; execArgv?: readonly string[]; timeoutMs: number }): Promise<NodeRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.execArgv ?? []), ...options.args], {
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
    child.once('error', (error) => {
      clearTimeout(limit);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(limit);
      resolve({ code, stdout, stderr, wallMs: performance.now() - started });
    });
  });
}

/** The JSON object a bench child prints as its last line of output. */
export function lastJsonLine<T>(run: NodeRun): T {
  const line = run.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as T;
  } catch {
    throw new Error(`bench child exited ${run.code} without a result: ${run.stderr.slice(0, 2000)}`);
  }
}
