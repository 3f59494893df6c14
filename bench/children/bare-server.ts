/**
 * @module bench/children/bare-server
 * The ceiling: a bare node:http server answering every request with one fixed small JSON
 * body. It reads a request body before answering, as any server must, and does nothing else,
 * so the gap between it and the mock is the cost of the mock's own work.
 *
 * Run: node dist/bench/children/bare-server.js --port N
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } });
const body = Buffer.from('{"status":"ok"}');
const headers = { 'content-type': 'application/json', 'content-length': String(body.byteLength) };

const server = createServer((incoming, outgoing) => {
  if (incoming.method === 'GET' || incoming.method === 'HEAD') {
    outgoing.writeHead(200, headers).end(body);
    return;
  }
  incoming.resume();
  incoming.once('end', () => outgoing.writeHead(200, headers).end(body));
});
server.listen(Number(values.port), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
