/**
 * The runner's reading on past --timeout on a real socket, in real time: a body that keeps
 * coming is read to its end, one that would outlast the run is cut at the run's end. What is under
 * test is how bytes arrive per window of wall-clock time on node:http, so it cannot run on a fake
 * clock; it lives in the slow project (vitest.config.ts), with the server's writes ten times more
 * frequent than the window they are judged in (issue 43).
 */
import { expect, it } from 'vitest';
import { Transport } from '../../src/conformance/http/transport.js';
import { loopbackServersClosedAfterEach } from '../support/loopback-servers.js';

const serve = loopbackServersClosedAfterEach();

it('reads on past --timeout an answer whose body keeps coming, and cuts one that stalls, never past the run’s end', async () => {
  // 64 kB every 100 ms for 2 s: more than 16 KiB in every 1 s window, two windows past the
  // deadline of the three a body may take. A busy machine would have to hold the server's writes
  // for a whole second to look like a stall.
  const chunk = 'x'.repeat(64 * 1024);
  const chunks = 20;
  const body = `{"jobId":"job_slow","status":"QUEUED","limitations":["${chunk.repeat(chunks)}"]}`;
  const target = await serve((_, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
    let sent = 0;
    const next = () => {
      if (response.destroyed) return;
      const end = Math.min(body.length, sent + chunk.length);
      response.write(body.slice(sent, end));
      sent = end;
      // real-time: the body's pace is the point; 100 ms between writes, judged per 1 s window (10x).
      if (sent < body.length) setTimeout(next, 100);
      else response.end();
    };
    next();
  });
  // real-time: --timeout 1000 ms is the window the body's pace is judged in.
  const transport = new Transport({ baseUrl: target, timeoutMs: 1000, maxResponseBytes: 8 * 2 ** 20 });
  const slow = await transport.send({ method: 'GET', path: '/', headers: {} });
  expect(slow.timedOut).toBe(false);
  expect(slow.response?.incomplete).toBeUndefined();
  expect(slow.response?.json).toMatchObject({ jobId: 'job_slow' });
  // The run's end comes first: the body is cut there however it moves.
  const budgeted = await transport.send({ method: 'GET', path: '/', headers: {} }, { runDeadline: Date.now() + 1500 });
  expect(budgeted.timedOut).toBe(true);
  expect(budgeted.response?.incomplete?.reason).toBe('timeout');
});
