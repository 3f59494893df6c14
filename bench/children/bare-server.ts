/**
 * @module bench/children/bare-server
 * The ceiling: a bare node:http server answering every request with one fixed small JSON
 * body. It reads a request body before answering, as any server must, and does nothing else,
 * so the gap between it and the mock is the cost of the mock's own work.
 *
 * With `--work-us N` it also spins N µs of synchronous work before each answer: the reference
 * for what any work at all costs over HTTP on the machine at hand.
 *
 * Run: node dist/bench/children/bare-server.js --port N [--work-us N]
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, 'work-us': { type: 'string', default: '0' } } });
const workMs = Number(values['work-us']) / 1000;

function work(): void {
  if (workMs === 0) return;
  const end = performance.now() + workMs;
  while (performance.now() < end);
}
const body = Buffer.from('{"status":"ok"}');
const headers = { 'content-type': 'application/json', 'content-length': String(body.byteLength) };

const server = createServer((incoming, outgoing) => {
  if (incoming.method === 'GET' || incoming.method === 'HEAD') {
    work();
    outgoing.writeHead(200, headers).end(body);
    return;
  }
  incoming.resume();
  incoming.once('end', () => {
    work();
    outgoing.writeHead(200, headers).end(body);
  });
});
server.listen(Number(values.port), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
