/**
 * @module test/hardening/attack-figures
 * The figures of docs/reliability.md "Hardening: the server": the attacks that the node:http
 * server and the CLI answer, sent to the built executable running in a
 * child process, with what a user would notice measured — CPU per request, another client's
 * /health latency, time from SIGTERM to exit, the status of refused calls. Given a second
 * executable (an older build), it runs the same attacks on both, one after the other, so that
 * before and after come from one script on one machine.
 *
 * Run: node dist/test/hardening/attack-figures.js [--compare OTHER/dist/cli/evidence-harness.js]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { markdownTable } from '../../bench/figures.js';
import { processCpuMs } from '../../bench/processes.js';
import { executablePath } from '../../src/openapi/package-root.js';

interface Mock {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startMock(executable: string, args: readonly string[]): Promise<Mock> {
  const child = spawn(process.execPath, [executable, 'mock', '--port', '0', '--quiet', ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`the mock exited before listening: ${output}`)));
  });
  child.stdout?.resume();
  return { url, child, exited };
}

async function stop(mock: Mock): Promise<void> {
  if (mock.child.exitCode === null && mock.child.signalCode === null) mock.child.kill('SIGKILL');
  await mock.exited;
}

/** Sends `text` on a new connection; resolves with what came back before the connection ended. */
function exchange(url: string, text: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('close', () => resolve(received));
    socket.on('error', () => undefined);
    socket.on('connect', () => socket.write(text));
  });
}

const statusOf = (answer: string) => (answer.startsWith('HTTP/1.1 ') ? answer.slice(9, 12) : 'none');
const headerOf = (answer: string, name: string) =>
  new RegExp(`\\r\\n${name}: ([^\\r]*)\\r\\n`, 'i').exec(answer.slice(0, answer.indexOf('\r\n\r\n') + 2))?.[1];
const bodyOf = (answer: string) => answer.slice(answer.indexOf('\r\n\r\n') + 4);
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const paddedRequest = `GET /v0/jobs/job_none HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: a${' '.repeat(16_000)}b\r\nConnection: close\r\n\r\n`;
const plainRequest = 'GET /v0/jobs/job_none HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';
const healthRequest = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';

/** Server CPU per request, in ms, over `count` sequential requests. */
async function cpuPerRequest(mock: Mock, text: string, count: number): Promise<number> {
  const before = processCpuMs(mock.child.pid!) ?? Number.NaN;
  for (let index = 0; index < count; index += 1) await exchange(mock.url, text);
  return ((processCpuMs(mock.child.pid!) ?? Number.NaN) - before) / count;
}

/** Row 2: 16,000 spaces inside one header value. */
async function headerFigures(executable: string) {
  const mock = await startMock(executable, []);
  try {
    await cpuPerRequest(mock, plainRequest, 200);
    const plainMs = await cpuPerRequest(mock, plainRequest, 500);
    // Ten requests measure the quadratic trim (hundreds of ms each); a fast one needs more to rise above /proc's 10-ms ticks.
    const firstMs = await cpuPerRequest(mock, paddedRequest, 10);
    const paddedMs = firstMs < 20 ? await cpuPerRequest(mock, paddedRequest, 500) : firstMs;
    let attacking = true;
    const attackers = Array.from({ length: 4 }, async () => {
      while (attacking) await exchange(mock.url, paddedRequest);
    });
    const probes: number[] = [];
    for (let index = 0; index < 20; index += 1) {
      const started = performance.now();
      await exchange(mock.url, healthRequest);
      probes.push(performance.now() - started);
      await sleep(20);
    }
    attacking = false;
    await Promise.all(attackers);
    return { plainMs, paddedMs, healthP50: median(probes), healthMax: Math.max(...probes) };
  } finally {
    await stop(mock);
  }
}

function slowScenarioFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'eh-attack-')), 'slow.json');
  writeFileSync(file, JSON.stringify({ name: 'slow', latencyMs: 60_000 }));
  return file;
}

/** Row 6: SIGTERM while 200 requests wait out a 60 s latency; then a second signal. */
async function shutdownFigures(executable: string) {
  const mock = await startMock(executable, ['--scenario', slowScenarioFile()]);
  const answers = Array.from({ length: 200 }, (_, index) =>
    exchange(mock.url, `GET /v0/jobs/job_${index} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
  );
  await sleep(1000);
  const signalled = performance.now();
  mock.child.kill('SIGTERM');
  const limit = sleep(15_000).then(() => 'still running' as const);
  const exit = await Promise.race([mock.exited, limit]);
  const exitMs = performance.now() - signalled;
  await stop(mock);
  const statuses = (await Promise.all(answers)).map(statusOf);
  const answered = statuses.filter((status) => status !== 'none').length;
  // A second signal while the first waits for a request whose body never ends.
  const second = await startMock(executable, []);
  const holder = connect(Number(new URL(second.url).port), '127.0.0.1');
  holder.on('error', () => undefined);
  holder.write('POST /v0/evaluations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
  await sleep(300);
  second.child.kill('SIGTERM');
  await sleep(300);
  const again = performance.now();
  second.child.kill('SIGTERM');
  const secondExit = await Promise.race([second.exited, sleep(15_000).then(() => 'still running' as const)]);
  const secondMs = performance.now() - again;
  holder.destroy();
  await stop(second);
  return {
    exit: exit === 'still running' ? `still running after 15 s` : `code ${exit.code}${exit.signal ? `, ${exit.signal}` : ''}`,
    exitMs,
    answered,
    secondExit:
      secondExit === 'still running'
        ? 'still running after 15 s'
        : `code ${secondExit.code}${secondExit.signal ? `, ${secondExit.signal}` : ''}`,
    secondMs,
  };
}

/** Rows 3 and 9: a web page's cross-origin control call, a rebinding Host, no Host at all. */
async function controlFigures(executable: string) {
  const mock = await startMock(executable, []);
  try {
    const crossOrigin = await exchange(
      mock.url,
      'GET /__mock/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\nConnection: close\r\n\r\n',
    );
    const rebinding = await exchange(mock.url, 'GET /__mock/jobs HTTP/1.1\r\nHost: evil.example:4010\r\nConnection: close\r\n\r\n');
    const preflight = await exchange(
      mock.url,
      'OPTIONS /__mock/scenario HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\nAccess-Control-Request-Method: PUT\r\nConnection: close\r\n\r\n',
    );
    const noHost = await exchange(mock.url, 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n');
    const describe = (answer: string) =>
      `${statusOf(answer)}, ACAO ${headerOf(answer, 'access-control-allow-origin') ?? 'none'}, body ${bodyOf(answer).slice(0, 60) || '(empty)'}`;
    return { crossOrigin: describe(crossOrigin), rebinding: describe(rebinding), preflight: describe(preflight), noHost: describe(noHost) };
  } finally {
    await stop(mock);
  }
}

async function figuresOf(executable: string) {
  return {
    header: await headerFigures(executable),
    shutdown: await shutdownFigures(executable),
    control: await controlFigures(executable),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { compare: { type: 'string' } } });
  const executables = [...(values.compare ? [['other', values.compare] as const] : []), ['this', executablePath()] as const];
  const results: [string, Awaited<ReturnType<typeof figuresOf>>][] = [];
  for (const [label, executable] of executables) {
    process.stderr.write(`attack figures: ${label} (${executable})…\n`);
    results.push([label, await figuresOf(executable)]);
  }
  const ms = (value: number) => value.toFixed(value < 10 ? 2 : 0);
  const rows: string[][] = [
    ['server CPU per GET /v0/jobs/x, no padding (ms)', ...results.map(([, r]) => ms(r.header.plainMs))],
    ['server CPU per GET with 16,000 spaces inside a header (ms)', ...results.map(([, r]) => ms(r.header.paddedMs))],
    [
      'another client’s /health during 4 such attackers, p50 / max (ms)',
      ...results.map(([, r]) => `${ms(r.header.healthP50)} / ${ms(r.header.healthMax)}`),
    ],
    [
      'SIGTERM with 200 requests in a 60 s latency: exit',
      ...results.map(([, r]) => `${r.shutdown.exit} after ${ms(r.shutdown.exitMs)} ms`),
    ],
    ['… of those 200 requests, answered', ...results.map(([, r]) => String(r.shutdown.answered))],
    [
      'second SIGTERM while the first waits: exit',
      ...results.map(([, r]) => `${r.shutdown.secondExit} after ${ms(r.shutdown.secondMs)} ms`),
    ],
    ['GET /__mock/jobs with Origin: http://evil.example', ...results.map(([, r]) => r.control.crossOrigin)],
    ['GET /__mock/jobs with Host: evil.example:4010', ...results.map(([, r]) => r.control.rebinding)],
    ['preflight of PUT /__mock/scenario from http://evil.example', ...results.map(([, r]) => r.control.preflight)],
    ['HTTP/1.1 GET /health without Host', ...results.map(([, r]) => r.control.noHost)],
  ];
  process.stdout.write(
    `${markdownTable({ headers: ['Attack', ...executables.map(([label, executable]) => `${label === 'this' ? 'this build' : 'compared build'} (${executable})`)], rows })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`attack figures: failed: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exitCode = 1;
});
