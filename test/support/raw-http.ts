/**
 * Raw HTTP for tests that must send what fetch would normalise away (no Host, two Hosts,
 * whitespace in a header value): bytes on a new connection, and everything that came back.
 */
import { connect } from 'node:net';

/** Sends `text` to `url`'s port and resolves with everything the server sent until the connection ended (closed or reset). */
export function rawExchange(url: string, text: string | Buffer): Promise<string> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('close', () => resolve(received));
    socket.on('error', () => undefined);
    socket.on('connect', () => socket.write(text));
  });
}
