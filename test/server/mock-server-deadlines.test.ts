/**
 * The mock's socket deadlines in real time: a client that trickles its headers or its body
 * is cut with 408 while others are served; a body slower than one window is taken as long as it
 * keeps coming; a refused body that drains past the request window is cut without a second answer.
 * What is under test is the wall clock against the server's windows, so these live in the slow
 * project (vitest.config.ts), every client's pace at least ten times finer than the window it is
 * judged in, and every event the test depends on at least ten times earlier than the deadline
 * that would change the outcome (issue 43).
 */
import { expect, it } from 'vitest';
import { evaluationRequest } from '../support/fixtures.js';
import { socketExchange } from '../support/raw-http.js';
import { mockServersClosedAfterEach } from '../support/started-servers.js';
import { testTimeout } from '../support/time-limits.js';

const start = mockServersClosedAfterEach();

// real-time: the windows under test; every client below writes at least every 50 ms (20x finer than headersMs).
const deadlines = { headersMs: 1000, requestMs: 2000 };
/** How often a trickling client writes: 1/20 of the shortest window. */
const trickleMs = 50;

it(
  'answers a request once: a request timeout while a refused body drains cuts it without adding a 408',
  async () => {
    // The body goes over the limit after 150 ms of trickling (13x before the 2 s window ends), and
    // the drain that follows outlives the request window: it is cut, with no 408 after the 413.
    const server = await start({ timeouts: deadlines });
    const received = await socketExchange({
      port: server.port,
      send: (socket) => {
        socket.write(
          'POST /v0/evaluations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nIdempotency-Key: k\r\nTransfer-Encoding: chunked\r\n\r\n',
        );
        const started = Date.now();
        const trickle = () => {
          if (socket.destroyed) return;
          if (Date.now() - started > 150) socket.write(`300000\r\n${' '.repeat(0x300000)}\r\n`);
          else socket.write('1\r\n \r\n');
          // real-time: the client's pace, 40x finer than the request window.
          setTimeout(trickle, trickleMs);
        };
        trickle();
      },
    });
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).not.toMatch(/408/);
  },
  testTimeout({ waitsMs: [2 * deadlines.requestMs] }),
);

it('cuts off a client that trickles its headers, with 408 request_timeout, while serving others', async () => {
  const server = await start({ timeouts: deadlines });
  let stop = false;
  const slow = socketExchange({
    port: server.port,
    send: (socket) => {
      socket.write('GET /health HTTP/1.1\r\n');
      const trickle = () => {
        if (stop || socket.destroyed) return;
        socket.write('X');
        // real-time: the client's pace, 20x finer than the headers' deadline.
        setTimeout(trickle, trickleMs);
      };
      trickle();
    },
  });
  // Another client is served while the slow one is still connected.
  const health = await fetch(`${server.url}/health`);
  expect(health.status).toBe(200);
  const reply = await slow;
  stop = true;
  expect(reply).toMatch(/^HTTP\/1\.1 408 /);
  expect(reply).toContain('"code":"request_timeout"');
});

it(
  'takes a body slower than one window as long as it keeps coming: the cut is for a stall, not a slow link',
  async () => {
    // A window of 2 s, a chunk every 100 ms (20x finer): the body takes 5 s, past any deadline of
    // one window for the whole body, while each window brings 40 kB. A busy machine would have to
    // hold this test's writes for 2 s to look like a stall.
    const server = await start({ timeouts: { headersMs: 2000, requestMs: 2000, bodyMinBytes: 1024 } });
    const json = JSON.stringify(evaluationRequest());
    const chunks = 50;
    const padding = ' '.repeat(2048);
    const received = await socketExchange({
      port: server.port,
      send: (socket) => {
        socket.write(
          `POST /v0/evaluations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nIdempotency-Key: slow-link\r\nContent-Length: ${json.length + chunks * padding.length}\r\nConnection: close\r\n\r\n`,
        );
        let sent = 0;
        const next = () => {
          if (socket.destroyed) return;
          if (sent === chunks) return void socket.write(json);
          sent += 1;
          socket.write(padding);
          // real-time: the link's pace, 20x finer than the window it is judged in.
          setTimeout(next, 100);
        };
        next();
      },
    });
    expect(received).toMatch(/^HTTP\/1\.1 202 /);
  },
  testTimeout({ waitsMs: [5000] }),
);

it('cuts off a client that trickles its body, with 408, and logs the request as aborted', async () => {
  const lines: string[] = [];
  const server = await start({ timeouts: deadlines, log: (line) => lines.push(line) });
  let stop = false;
  const slow = socketExchange({
    port: server.port,
    send: (socket) => {
      socket.write(
        'POST /v0/evaluations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nIdempotency-Key: k\r\nContent-Length: 1000\r\n\r\n{',
      );
      const trickle = () => {
        if (stop || socket.destroyed) return;
        socket.write(' ');
        // real-time: the client's pace, 40x finer than the request window.
        setTimeout(trickle, trickleMs);
      };
      trickle();
    },
  });
  expect((await fetch(`${server.url}/health`)).status).toBe(200);
  const reply = await slow;
  stop = true;
  expect(reply).toMatch(/^HTTP\/1\.1 408 /);
  await expect.poll(() => lines.find((line) => line.includes('POST /v0/evaluations'))).toMatch(/ POST \/v0\/evaluations aborted /);
});
