#!/usr/bin/env node
/**
 * A round-robin balancer small enough to read in a minute, for trying replicas of the mock
 * on one machine (docs/scale-out.md). Each request goes to the next upstream in turn, body
 * and answer streamed through unchanged; an upstream that refuses the connection gets the
 * request's turn passed to the next one. Not for production: use your platform's balancer.
 *
 *   node examples/scale-out/round-robin.mjs --port 4010 http://127.0.0.1:4011 http://127.0.0.1:4012
 */
import { createServer, request as forward } from 'node:http';

const args = process.argv.slice(2);
const portAt = args.indexOf('--port');
const port = portAt >= 0 ? Number(args[portAt + 1]) : 4010;
const upstreams = args.filter((arg, index) => arg.startsWith('http://') && index !== portAt + 1).map((url) => new URL(url));
if (upstreams.length === 0) {
  process.stderr.write('usage: round-robin.mjs [--port 4010] http://HOST:PORT [http://HOST:PORT …]\n');
  process.exit(2);
}

let turn = 0;
const server = createServer((incoming, outgoing) => {
  // The body is buffered (a mock's bodies are small, at most 1 MiB), so a refused upstream's
  // turn can pass on.
  const chunks = [];
  incoming.on('data', (chunk) => chunks.push(chunk));
  incoming.on('end', () => send(Buffer.concat(chunks), 0));

  function send(body, tries) {
    const upstream = upstreams[turn++ % upstreams.length];
    const outbound = forward(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: upstream.host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    outbound.on('error', () => {
      if (tries + 1 < upstreams.length && !outgoing.headersSent) return send(body, tries + 1);
      if (!outgoing.headersSent) outgoing.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      outgoing.end(JSON.stringify({ code: 'service_unavailable', message: 'No replica answered.' }));
    });
    outbound.end(body);
  }
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`round-robin on http://127.0.0.1:${server.address().port} → ${upstreams.map(String).join(', ')}\n`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close(() => process.exit(0)));
