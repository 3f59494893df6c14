/**
 * The built `evidence-harness mock` attacked as issue 10 describes, in a child process so the
 * test is only a client: each attack runs first, then the test asserts what a user notices —
 * the attackers' answers, and that another client's GET /health stays fast meanwhile (p50 under
 * 100 ms over 20 probes: a generous bound for a shared 2-core machine, where the attacks took
 * it past a second). docs/reliability.md "Hardening: the server" records the figures.
 */
import { afterEach, expect, it } from 'vitest';
import { evaluationRequest } from '../support/fixtures.js';
import { bodyOf, median, probeHealth, rawExchange, startAttack, statusOf } from './attack-clients.js';
import { type MockProcess, startMockProcess } from './mock-process.js';

const started: MockProcess[] = [];
afterEach(async () => {
  for (const mock of started.splice(0)) if (mock.child.exitCode === null && mock.child.signalCode === null) mock.child.kill('SIGKILL');
});

async function start(args: string[] = [], options: { quiet?: boolean } = {}): Promise<MockProcess> {
  const mock = await startMockProcess(args, options);
  started.push(mock);
  return mock;
}

/** Header values of about 16 KB (under Node's 16 KiB header limit) that a regex trim took quadratic time over. */
const whitespace = {
  spaces: `a${' '.repeat(16_000)}b`,
  tabs: `a${'\t'.repeat(16_000)}b`,
  mixed: `a${' \t'.repeat(8_000)}b`,
  everywhere: `${' '.repeat(5_000)}a${'\t '.repeat(2_500)}b${' '.repeat(5_000)}`,
};
const values = Object.values(whitespace);
const body = JSON.stringify(evaluationRequest());

/** One request of the attack, `round` choosing the value, the header and the operation. */
function whitespaceRequest(round: number): string {
  const value = values[round % values.length]!;
  switch (round % 3) {
    case 0:
      return `GET /v0/jobs/job_none HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ${value}\r\nConnection: close\r\n\r\n`;
    case 1:
      return `GET /v0/jobs/job_none HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${value}\r\nConnection: close\r\n\r\n`;
    default:
      return (
        `POST /v0/evaluations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nIdempotency-Key: ws-${round}\r\n` +
        `Prefer: ${value}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`
      );
  }
}

it('answers requests with 16 KB whitespace header values at once, and another client’s /health stays fast meanwhile', async () => {
  const mock = await start();
  const attack = startAttack({ clients: 4, request: (round) => rawExchange(mock.url, whitespaceRequest(round)) });
  const probe = await probeHealth({ url: mock.url, count: 20, gapMs: 20 });
  await attack.stop();
  expect(probe.statuses).toEqual(Array(20).fill(200));
  expect(median(probe.ms), `/health ms during the attack: ${probe.ms.map((ms) => ms.toFixed(0)).join(', ')}`).toBeLessThan(100);
  // Every attacking request got its own answer: getJob's 404, createEvaluation's 202.
  expect(attack.answers.length).toBeGreaterThan(20);
  for (const answer of attack.answers) expect([404, 202]).toContain(statusOf(answer));
});

it('trims leading and trailing whitespace of a header as Fetch does, however long', async () => {
  const mock = await start();
  const padded = (value: string) => `${' \t'.repeat(3_000)}${value}${'\t '.repeat(3_000)}`;
  const create = (key: string) =>
    rawExchange(
      mock.url,
      `POST /v0/evaluations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${padded('application/json')}\r\nIdempotency-Key: ${key}\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
  const first = await create(padded('ws-trim'));
  const replay = await create('ws-trim');
  expect([statusOf(first), statusOf(replay)]).toEqual([202, 202]);
  expect(JSON.parse(bodyOf(replay)).jobId).toBe(JSON.parse(bodyOf(first)).jobId);
  const forced = await rawExchange(
    mock.url,
    `GET /v0/jobs/job_none HTTP/1.1\r\nHost: 127.0.0.1\r\nPrefer: ${padded('code=503')}\r\nConnection: close\r\n\r\n`,
  );
  expect(statusOf(forced)).toBe(503);
});
