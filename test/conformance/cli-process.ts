/**
 * The built `evidence-harness conformance` in a child process, as a user or CI runs it: its exit
 * code, output, wall time and peak resident memory (VmHWM from /proc, read while it runs).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { executablePath } from '../../src/openapi/package-root.js';

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** From spawn to exit. */
  readonly wallMs: number;
  /** From spawn to the last chunk written to stdout or stderr. */
  readonly lastOutputMs: number;
  /** The highest VmHWM read while the process ran, in MB (0 where /proc is missing). */
  readonly peakRssMb: number;
}

export interface CliOptions {
  /** Called with the child once started and with each stderr chunk (to send it a signal at the right time). */
  readonly onStderr?: (text: string, child: ReturnType<typeof spawn>) => void;
  /** Kills the child after this long, as a safety net for a test that would otherwise hang. */
  readonly killAfterMs?: number;
  readonly env?: NodeJS.ProcessEnv;
}

function highWaterMarkMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [executablePath(), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env ?? process.env,
  });
  let stdout = '';
  let stderr = '';
  let peak = 0;
  let lastOutputMs = 0;
  // real-time: a memory sample every 50 ms, for the figures printed; nothing is judged by when it runs.
  const sample = setInterval(() => {
    peak = Math.max(peak, highWaterMarkMb(child.pid));
  }, 50);
  // real-time: a hung child's last resort (170 s by default), not a margin.
  const safety = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 170_000);
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
    lastOutputMs = performance.now() - started;
  });
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
    lastOutputMs = performance.now() - started;
    peak = Math.max(peak, highWaterMarkMb(child.pid));
    options.onStderr?.(String(chunk), child);
  });
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      const wallMs = performance.now() - started;
      clearInterval(sample);
      clearTimeout(safety);
      // The pipes may still hold the last output: wait for them to close.
      child.once('close', () => resolve({ code, signal, stdout, stderr, wallMs, lastOutputMs, peakRssMb: peak }));
    });
  });
}
