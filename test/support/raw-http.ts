/**
 * Raw HTTP for tests that must send what fetch would normalise away (no Host, two Hosts,
 * whitespace in a header value): bytes on a new connection, and everything that came back.
 */
import { connect, type Socket } from 'node:net';

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

/**
 * Opens a connection to `port` on 127.0.0.1, lets `send` write to it at its own pace, and resolves
 * with everything the server sent before the connection ended, whether it closed or was reset (a
 * server cutting off a client that is still sending resets the connection, after its answer).
 */
export function socketExchange(options: { port: number; send: (socket: Socket) => void }): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(options.port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    socket.on('close', () => resolve(received));
    // A reset: 'close' follows and resolves with what had arrived.
    socket.on('error', () => undefined);
    socket.on('connect', () => options.send(socket));
  });
}
