/**
 * The runner against servers that attack it (test/fixtures/hostile-servers): the built CLI in a
 * child process, as CI runs it, must end by itself within its bounds whatever the server does,
 * under 300 MB of peak memory, with the verdict the server deserves (never "passed" for a broken
 * one), no stack trace, no transport codes, and no credential anywhere in what it prints or
 * writes. HOSTILE_TIMEOUT_MS=5000 HOSTILE_FIGURES=1 prints the figures of docs/reliability.md.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { conformanceDefaults } from '../../src/conformance/run.js';
import { hostileServers, startHostileServer } from '../fixtures/hostile-servers/hostile-servers.js';
import { inTime, runnerTimeoutMs, testTimeout } from '../support/time-limits.js';
import { type CliRun, runCli } from './cli-process.js';

const timeoutMs = Number(process.env.HOSTILE_TIMEOUT_MS ?? runnerTimeoutMs);
/**
 * How long a run against a hostile server may take before the safety net kills it (and the exit
 * code check fails): its own --time-budget (10 minutes by default), by which it ends by itself
 * whatever the server does, plus the allowance. Idle, a run takes seconds; at load 20 with five
 * runs at once, some took over 100 s.
 */
const runLimitMs = inTime(conformanceDefaults.timeBudgetMs);
/** The --timeout of the runs a signal stops: so long that only the signal can end them before it. */
const silentTimeoutMs = 3 * inTime();
const secrets = { alice: 'Bearer alice-s3cret-token-7f3a', bob: 'Bearer bob-s3cret-token-91c2' };
const exitCodes = { passed: 0, failed: 1, incomplete: 3 } as const;

/** Everything a run printed or wrote: stdout, stderr, every report and every body file beside them. */
function everythingWritten(run: CliRun, folder: string): string {
  const files = readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'));
  return [run.stdout, run.stderr, ...files].join('\n');
}

/** No value, and no 8-character piece of one (a credential cut in two by an excerpt), in `text`. */
function expectNoLeak(text: string, values: readonly string[]): void {
  for (const value of values) {
    expect(text.includes(value), `"${value}" was printed or written`).toBe(false);
    for (let start = 0; start + 8 <= value.length; start += 1) {
      const piece = value.slice(start, start + 8);
      if (/^[\w-]{8}$/.test(piece) && !/^(Bearer|-token-)/.test(piece))
        expect(text.includes(piece), `"${piece}" of a secret was printed`).toBe(false);
    }
  }
}

function expectPlainOutput(run: CliRun): void {
  expect(run.stderr + run.stdout).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n|node:internal|HPE_[A-Z_]+|UND_ERR|ECONN[A-Z]+|EPIPE/);
}

it.concurrent.each(hostileServers.map((server) => [server.name, server] as const))(
  '%s: the built CLI ends by itself, bounded, with the verdict it deserves and no secret printed',
  async (_, server) => {
    const target = await startHostileServer(server);
    const folder = mkdtempSync(join(tmpdir(), `eh-hostile-${server.name}-`));
    try {
      const run = await runCli(
        [
          'conformance',
          '--base-url',
          target.url,
          '--seed',
          '11',
          '--timeout',
          String(timeoutMs),
          '--header',
          `Authorization: ${secrets.alice}`,
          '--second-caller-header',
          `Authorization: ${secrets.bob}`,
          '--report',
          `json=${join(folder, 'report.json')}`,
          '--report',
          `junit=${join(folder, 'junit.xml')}`,
          '--report',
          `html=${join(folder, 'report.html')}`,
          ...(server.args ?? []),
        ],
        { killAfterMs: runLimitMs },
      );
      if (process.env.HOSTILE_FIGURES === '1')
        console.log(`| \`${server.name}\` | ${(run.wallMs / 1000).toFixed(1)} s | ${Math.round(run.peakRssMb)} MB | exit ${run.code} |`);
      expect(run.code, run.stdout.slice(-3000) + run.stderr.slice(-2000)).toBe(exitCodes[server.verdict]);
      const report = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8'));
      expect(report.verdict).toBe(server.verdict);
      expect(run.stdout).toMatch(new RegExp(`· ${server.verdict.toUpperCase()} \\(exit ${exitCodes[server.verdict]}\\)\\n$`));
      expect(run.peakRssMb).toBeLessThan(300);
      // Nothing the server left open keeps the process alive once the summary and reports are out.
      // Ended by itself (the safety net would have left no exit code), within its run limit:
      if (server.exitsWithinMsOfLastOutput !== undefined)
        expect(run.wallMs - run.lastOutputMs).toBeLessThan(inTime(server.exitsWithinMsOfLastOutput));
      expectPlainOutput(run);
      const written = everythingWritten(run, folder);
      if (server.maxWrittenBytes !== undefined) {
        // What the run printed and its reports (the body files beside them hold the runner's own requests).
        const reports = ['report.json', 'junit.xml', 'report.html'].map((name) => readFileSync(join(folder, name), 'utf8'));
        expect([run.stdout, run.stderr, ...reports].join('').length).toBeLessThan(server.maxWrittenBytes);
      }
      expectNoLeak(written, [secrets.alice, secrets.bob, 'alice-s3cret-token-7f3a', 'bob-s3cret-token-91c2']);
    } finally {
      await target.close();
    }
  },
  testTimeout({ waitsMs: [runLimitMs] }),
);

it(
  'scrubs a credential the server echoes across the cut of an excerpt, which a scrub after cutting would miss',
  async () => {
    const server = hostileServers.find((candidate) => candidate.name === 'echo-across-the-excerpt-cut')!;
    const target = await startHostileServer(server);
    const folder = mkdtempSync(join(tmpdir(), 'eh-hostile-excerpt-'));
    try {
      const run = await runCli([
        'conformance',
        '--base-url',
        target.url,
        '--seed',
        '11',
        '--checks',
        'unknown_job_not_found',
        '--header',
        `Authorization: ${secrets.alice}`,
        '--report',
        `json=${join(folder, 'report.json')}`,
        '--report',
        `junit=${join(folder, 'junit.xml')}`,
        '--report',
        `html=${join(folder, 'report.html')}`,
      ]);
      expect(run.code, run.stdout + run.stderr).toBe(1);
      // The path-character probes (issue 23) fail the same check first; this is the plain unknown job's failure.
      const failures: { title: string; received: string }[] = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')).checks[0]
        .failures;
      const failure = failures.find((candidate) => candidate.title === 'unknown job answered 200')!;
      expect(failure, JSON.stringify(failures.map((candidate) => candidate.title))).toBeDefined();
      // The excerpt was cut where the credential had been: the echo reached it, scrubbed whole before the cut.
      expect(failure.received).toMatch(/"limitations":\["p+\[REDACTED\]"\]\}$/);
      expectNoLeak(everythingWritten(run, folder), [secrets.alice, 'alice-s3cret-token-7f3a']);
    } finally {
      await target.close();
    }
  },
  testTimeout({ waitsMs: [runLimitMs] }),
);

it(
  'moves userinfo in --base-url to an Authorization header, says so, and never prints the password',
  async () => {
    const server = hostileServers.find((candidate) => candidate.name === 'echoed-credentials')!;
    const target = await startHostileServer(server);
    const folder = mkdtempSync(join(tmpdir(), 'eh-hostile-userinfo-'));
    try {
      const withUserinfo = target.url.replace('http://', 'http://admin:hunter2-pass@');
      const run = await runCli([
        'conformance',
        '--base-url',
        withUserinfo,
        '--seed',
        '11',
        '--timeout',
        String(timeoutMs),
        '--checks',
        'unknown_job_not_found,error_body',
        '--report',
        `json=${join(folder, 'report.json')}`,
      ]);
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stderr).toMatch(/the user name and password in --base-url are sent as an Authorization: Basic header \(never printed\)/);
      // The server echoed the credentials back into the failure; they are scrubbed.
      expect(run.stdout).toMatch(/unknown_job_not_found · getJob · unknown job answered 200/);
      expect(run.stdout).toContain('[REDACTED]');
      expectNoLeak(everythingWritten(run, folder), [
        'hunter2-pass',
        'admin:hunter2-pass',
        Buffer.from('admin:hunter2-pass').toString('base64'),
      ]);
      expect(JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')).target).toBe(target.url);
    } finally {
      await target.close();
    }
  },
  testTimeout({ waitsMs: [runLimitMs] }),
);

it.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)(
  'writes the summary and every report, marked incomplete, when %s stops a run, and exits %i',
  async (signal, code) => {
    const server = hostileServers.find((candidate) => candidate.name === 'silence')!;
    const target = await startHostileServer(server);
    const folder = mkdtempSync(join(tmpdir(), 'eh-hostile-signal-'));
    try {
      let sent = false;
      const run = await runCli(
        [
          'conformance',
          '--base-url',
          target.url,
          '--seed',
          '11',
          '--timeout',
          String(silentTimeoutMs),
          '--report',
          `json=${join(folder, 'report.json')}`,
          '--report',
          `junit=${join(folder, 'junit.xml')}`,
          '--report',
          `html=${join(folder, 'report.html')}`,
        ],
        {
          // Once the run is past its preflight, the first create waits on the silent server: stop it there.
          onStderr: (text, child) => {
            if (!sent && /checking http/.test(text)) {
              sent = true;
              setTimeout(() => child.kill(signal), 300);
            }
          },
          killAfterMs: 3 * silentTimeoutMs,
        },
      );
      expect(run.code, run.stdout + run.stderr).toBe(code);
      // Without the signal the run waits out 3 silent --timeouts (3 × silentTimeoutMs); stopped, it ends well before one.
      expect(run.wallMs).toBeLessThan(silentTimeoutMs);
      expect(run.stderr).toContain(`conformance: ${signal}: stopping`);
      expect(run.stdout).toMatch(/^check +kind +result/);
      expect(run.stdout).toMatch(new RegExp(`INTERRUPTED by ${signal}, INCOMPLETE \\(exit ${code}\\)\\n$`));
      const report = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8'));
      expect(report).toMatchObject({ verdict: 'incomplete', interrupted: signal, exitCode: code, passed: false });
      expect(readFileSync(join(folder, 'junit.xml'), 'utf8')).toContain('<property name="verdict" value="incomplete"/>');
      expect(readFileSync(join(folder, 'report.html'), 'utf8')).toContain(`INTERRUPTED by ${signal}`);
      expectPlainOutput(run);
    } finally {
      await target.close();
    }
  },
  testTimeout({ waitsMs: [3 * silentTimeoutMs] }),
);
