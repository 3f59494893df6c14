/**
 * @module server/redis/reply-cap
 * A bound on the size of any one reply read from Redis (issue 22). @redis/client has none: its
 * decoder keeps every chunk of a reply until the reply ends, so a server that announces
 * `$999999999` and sends bytes for ever fills the mock's memory. Nor does the client take a
 * socket or a socket factory of ours (its `socket` options are spread into `net.connect`,
 * with `onread` overwritten). What it does is create its sockets with `net.connect`, which
 * Node announces on the public diagnostics channel `net.client.socket`; the sockets of one
 * connection are told apart from every other socket of the process by an AsyncLocalStorage
 * context entered around the client's `connect()` (its reconnections run in the same context,
 * since their socket events and timers do). On each such socket a `ReplyScanner` reads the RESP
 * framing as bytes arrive (type bytes, lengths and counts, never the content) and destroys the
 * socket as soon as one reply passes the cap, or announces a length past it: the client then
 * fails the commands waiting on that socket and reconnects by itself, as when Redis closes a
 * connection.
 *
 * Not covered: `rediss://` (TLS) connections. `tls.connect` is not announced on that channel
 * and gives no other public hook on its socket, so a TLS connection is bounded only by the
 * command deadline (docs/scale-out.md).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnosticsChannel from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/** The reason a watched socket was destroyed: a reply passed `maxReplyBytes`, or was not RESP. */
export class ReplyTooLargeError extends Error {
  override readonly name = 'ReplyTooLargeError';
}

const mebibyte = 1024 * 1024;

/** Bounds of `maxReplyBytes`, the cap's option (checked once, in `checkMaxReplyBytes`). */
export const replyCapLimits = { default: 16 * mebibyte, min: 64 * 1024, max: 1024 * mebibyte } as const;

/** The cap, checked once where the connection is opened; a clear RangeError when it is unusable. */
export function checkMaxReplyBytes(value: number | undefined): number {
  if (value === undefined) return replyCapLimits.default;
  if (!(Number.isInteger(value) && value >= replyCapLimits.min && value <= replyCapLimits.max)) {
    throw new RangeError(
      `openRedisConnection: maxReplyBytes must be a whole number of bytes from ${replyCapLimits.min} (64 KiB) to ${replyCapLimits.max} (1 GiB), got ${String(value).slice(0, 20)}`,
    );
  }
  return value;
}

/** RESP type bytes (RESP2 and RESP3, as @redis/client decodes them). */
const lineTypes = new Set([43, 45, 58, 95, 35, 44, 40]); // + - : _ # , (
const bulkTypes = new Set([36, 33, 61]); // $ ! =
const aggregateTypes = new Set([42, 126, 62]); // * ~ >
const mapType = 37; // %

/**
 * Follows the RESP framing of one connection's replies, to know how many bytes the reply being
 * read has taken so far. It keeps a few numbers, never the bytes: the client's own decoder keeps
 * those. Each element takes at least 3 bytes (`_\r\n`), so an aggregate announcing more
 * elements than the cap allows is refused at its header too.
 */
export class ReplyScanner {
  /** Bytes of the top-level reply read so far (0 between replies). */
  private replyBytes = 0;
  /** Elements still due in each open aggregate, the innermost last. */
  private readonly due: number[] = [];
  /** Payload bytes (and their CRLF) of a bulk string still to come. */
  private skip = 0;
  /** The type byte of the header line being read, or 0 between values. */
  private lineType = 0;
  /** The header line's text so far, kept only for types that carry a length (a few digits). */
  private lineText = '';

  constructor(private readonly maxBytes: number) {}

  /** Reads one chunk; returns why the connection must be dropped, or undefined. */
  push(chunk: Uint8Array): string | undefined {
    let at = 0;
    while (at < chunk.length) {
      if (this.skip > 0) {
        const taken = Math.min(this.skip, chunk.length - at);
        this.skip -= taken;
        at += taken;
        this.replyBytes += taken;
        if (this.replyBytes > this.maxBytes) return this.over();
        if (this.skip === 0) this.valueDone();
        continue;
      }
      if (this.lineType === 0) {
        const type = chunk[at] as number;
        if (!(lineTypes.has(type) || bulkTypes.has(type) || aggregateTypes.has(type) || type === mapType)) {
          return `a reply from the shared store is not RESP (type byte ${type})`;
        }
        this.lineType = type;
        this.lineText = '';
        at += 1;
        this.replyBytes += 1;
        continue;
      }
      const newline = chunk.indexOf(10, at);
      const end = newline < 0 ? chunk.length : newline + 1;
      this.replyBytes += end - at;
      if (this.replyBytes > this.maxBytes) return this.over();
      const carriesLength = !lineTypes.has(this.lineType);
      if (carriesLength) {
        // At most 25 characters are kept: a longer length line is refused below.
        this.lineText += String.fromCharCode(...chunk.subarray(at, Math.min(newline < 0 ? end : newline, at + 25)));
        if (this.lineText.length > 24) return 'a reply from the shared store has a length line of over 24 characters';
      }
      at = end;
      if (newline < 0) break;
      const type = this.lineType;
      this.lineType = 0;
      if (!carriesLength) {
        this.valueDone();
        continue;
      }
      const text = this.lineText.endsWith('\r') ? this.lineText.slice(0, -1) : this.lineText;
      // -1 is RESP2's null; anything else not a plain number (RESP3's streamed `?` included,
      // which @redis/client does not read either) is refused.
      if (!/^(-1|0|[1-9][0-9]{0,15})$/.test(text)) return `a reply from the shared store has an unreadable length '${text.slice(0, 24)}'`;
      const length = Number(text);
      if (length < 0 || (length === 0 && !bulkTypes.has(type))) {
        this.valueDone();
        continue;
      }
      if (bulkTypes.has(type)) {
        // The payload, then its CRLF (an empty string has the CRLF alone).
        if (this.replyBytes + length > this.maxBytes) return this.over(`${length} bytes`);
        this.skip = length + 2;
      } else {
        const elements = type === mapType ? length * 2 : length;
        if (this.replyBytes + elements * 3 > this.maxBytes) return this.over(`${elements} elements`);
        this.due.push(elements);
      }
    }
    return undefined;
  }

  /** A value ended: one element less in its aggregate, and a whole reply once none is open. */
  private valueDone(): void {
    while (this.due.length > 0) {
      const innermost = this.due.length - 1;
      const left = (this.due[innermost] as number) - 1;
      if (left > 0) {
        this.due[innermost] = left;
        return;
      }
      this.due.pop();
    }
    this.replyBytes = 0;
  }

  private over(announced?: string): string {
    return announced === undefined
      ? `a reply from the shared store passed ${this.maxBytes} bytes (maxReplyBytes)`
      : `a reply from the shared store announced ${announced} after ${this.replyBytes} bytes, past ${this.maxBytes} bytes in all (maxReplyBytes)`;
  }
}

/** The connection a socket being created belongs to, while its client connects. */
interface Owner {
  readonly maxReplyBytes: number;
  readonly port: number;
}

const owners = new AsyncLocalStorage<Owner>();
let watching = 0;

function onClientSocket(message: unknown): void {
  const owner = owners.getStore();
  if (!owner) return;
  const socket = (message as { socket: Socket }).socket;
  // Before its 'connect' nothing can be read; listening from then on keeps the socket paused
  // until the client attaches its own reader in the same turn. Prepended, so the scanner reads
  // each chunk before the client's decoder does.
  socket.once('connect', () => {
    // A second guard against taking a socket that is not the client's: it reaches Redis' port.
    if (socket.remotePort !== owner.port) return;
    const scanner = new ReplyScanner(owner.maxReplyBytes);
    const read = (chunk: Buffer) => {
      const problem = scanner.push(chunk);
      if (problem === undefined) return;
      socket.off('data', read);
      socket.destroy(new ReplyTooLargeError(`${problem}; the connection was dropped and is being reopened`));
    };
    socket.prependListener('data', read);
  });
}

/** What one connection uses to have its client's sockets watched. */
export interface ReplyCap {
  readonly maxReplyBytes: number;
  /** Runs `work` (the client's connect()) so that every socket it opens, then or on a reconnection, is watched. */
  run<T>(work: () => T): T;
  /** Wraps a listener given to the client: it runs outside the connection's context, so no socket it opens is taken for the client's. */
  outside<A extends unknown[], R>(listener: (...args: A) => R): (...args: A) => R;
  /** Stops watching new sockets when no connection is left. */
  close(): void;
}

/** Starts watching the sockets a client will open to `port`, each reply bounded by `maxReplyBytes`. */
export function replyCap(options: { maxReplyBytes: number; port: number }): ReplyCap {
  const owner: Owner = { maxReplyBytes: options.maxReplyBytes, port: options.port };
  if (watching === 0) diagnosticsChannel.subscribe('net.client.socket', onClientSocket);
  watching += 1;
  let closed = false;
  return {
    maxReplyBytes: options.maxReplyBytes,
    run: (work) => owners.run(owner, work),
    outside:
      (listener) =>
      (...args) =>
        owners.exit(() => listener(...args)),
    close() {
      if (closed) return;
      closed = true;
      watching -= 1;
      if (watching === 0) diagnosticsChannel.unsubscribe('net.client.socket', onClientSocket);
    },
  };
}
