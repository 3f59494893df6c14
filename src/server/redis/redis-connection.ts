/**
 * @module server/redis/redis-connection
 * One connection to Redis (or Valkey) for the shared store, through @redis/client, loaded only
 * when `--store` names Redis. Every command is bounded in time, and fails at once while the
 * server is out of reach (no offline queue), as a StoreUnavailableError: the engine answers 503
 * with Retry-After instead of holding requests (docs/assumptions.md A-25). The connection heals
 * by itself. A command whose deadline passes, or a reply past `maxReplyBytes` (reply-cap.ts),
 * drops the connection, which is then opened again: a reply half read is never taken for the
 * next command's, and no reply holds more memory than the cap. Scripts run by digest, loaded
 * on first use.
 */
import { createHash } from 'node:crypto';
import { StoreUnavailableError } from '../../engine/index.js';
import { checkMaxReplyBytes, replyCap } from './reply-cap.js';
import { redactedUrl } from './store-url.js';

export type RedisReply = string | number | null | RedisReply[];

/** A Lua script, run by its SHA-1 digest with EVALSHA (one round trip), loaded on first use. */
export interface RedisScript {
  readonly source: string;
  readonly sha1: string;
}

export function redisScript(source: string): RedisScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

export interface RedisConnectionOptions {
  /** redis://[user:password@]host:port[/db], or rediss:// for TLS. */
  readonly url: string;
  /** Longest wait for one command's answer. Default 1000 ms. */
  readonly commandTimeoutMs?: number;
  /** Longest wait for a connection. Default 1000 ms. */
  readonly connectTimeoutMs?: number;
  /**
   * Largest reply read, in bytes, framing included: past it (or when a reply announces more)
   * the connection is dropped and opened again, and the commands waiting on it fail with
   * StoreUnavailableError. Default 16 MiB, from 64 KiB to 1 GiB. The stores keep every reply they
   * read well under it (redis-store.ts, redis-link.ts). Not enforced on rediss:// (reply-cap.ts).
   */
  readonly maxReplyBytes?: number;
  /** Told when the connection is lost and found again (for a subscriber's resync), and of errors. */
  readonly onEvent?: (event: { kind: 'lost' | 'ready'; message?: string }) => void;
}

export interface RedisConnection {
  command(args: readonly (string | number)[]): Promise<RedisReply>;
  run(script: RedisScript, options: { keys: readonly string[]; args: readonly (string | number)[] }): Promise<RedisReply>;
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  /** Stops listening on `channel` (a session this replica let go of, A-60). */
  unsubscribe(channel: string): Promise<void>;
  /** The cap on one reply's bytes, as checked when the connection was opened. */
  readonly maxReplyBytes: number;
  /** Commands sent since the connection opened (the benchmark's round-trip figure). */
  readonly commandsSent: number;
  /** The same, by command name (EVALSHA: the stores' scripts; XADD: the journal's batched appends). */
  commandCounts(): Readonly<Record<string, number>>;
  close(): Promise<void>;
}

type RedisClient = {
  connect(): Promise<unknown>;
  sendCommand(args: readonly string[], options?: { timeout?: number }): Promise<unknown>;
  SUBSCRIBE(channel: string, listener: (message: string) => void): Promise<void>;
  UNSUBSCRIBE(channel: string): Promise<void>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  destroy(): void;
  close?(): Promise<void>;
  quit?(): Promise<unknown>;
  isReady: boolean;
  readonly socketEpoch: number;
};

/** A timeout option, checked once: a whole number of milliseconds from 1 to 10 minutes. */
function checkTimeout(name: string, value: number | undefined): number {
  if (value === undefined) return 1000;
  if (!(Number.isInteger(value) && value >= 1 && value <= 600_000)) {
    throw new RangeError(
      `openRedisConnection: ${name} must be a whole number of milliseconds from 1 to 600000, got ${String(value).slice(0, 20)}`,
    );
  }
  return value;
}

/** A client that fails at once while Redis is away, and reconnects for ever once it has connected. */
function newClient(options: {
  createClient(options: unknown): RedisClient;
  url: string;
  connectTimeout: number;
  connected: () => boolean;
}): RedisClient {
  return options.createClient({
    url: options.url,
    // No offline queue: while Redis is away, a command fails at once (503) instead of waiting.
    disableOfflineQueue: true,
    // A hung server (up but not answering) fills the queue: past this, commands fail at once.
    commandsQueueMaxLength: 10_000,
    socket: {
      connectTimeout: options.connectTimeout,
      // Once connected, reconnect forever, every 100 ms at first and at most every second; the
      // first connection gets three tries, so a wrong URL fails the start-up in a moment.
      reconnectStrategy: (retries: number, cause: Error) =>
        options.connected() ? Math.min(100 * 2 ** retries, 1000) : retries >= 2 ? cause : 100,
    },
  });
}

export async function openRedisConnection(options: RedisConnectionOptions): Promise<RedisConnection> {
  const commandTimeout = checkTimeout('commandTimeoutMs', options.commandTimeoutMs);
  const connectTimeout = checkTimeout('connectTimeoutMs', options.connectTimeoutMs);
  const maxReplyBytes = checkMaxReplyBytes(options.maxReplyBytes);
  const where = redactedUrl(options.url);
  const password = passwordOf(options.url);
  // Whatever a client or server error says, the password is not repeated (it may quote the URL).
  const messageOf = (error: unknown) => {
    const message = describe(error);
    return password ? message.split(password).join('***') : message;
  };
  // Loaded here, not at the top: the engine, the MSW handlers and a mock without --store never load it.
  const { createClient } = (await import('@redis/client')) as unknown as {
    createClient(options: unknown): RedisClient;
  };
  let connected = false;
  // Every socket the client opens, at once or on a reconnection, has its replies bounded.
  const cap = replyCap({ maxReplyBytes, port: portOf(options.url) });
  const client = newClient({ createClient, url: options.url, connectTimeout, connected: () => connected });
  let ready = false;
  let sent = 0;
  let closed = false;
  /** Why the connection was last dropped by this module, while it is being opened again. */
  let dropped: string | undefined;

  /** The last connection error, to say why a first connection failed (refused, unknown host…). */
  let lastError = '';
  // Listeners run outside the cap's context, so that nothing they open is taken for the client's socket.
  client.on(
    'error',
    cap.outside((error: unknown) => {
      lastError = messageOf(error);
      // An 'error' event nobody listens to would end the process; the state is told through onEvent.
      if (ready) {
        ready = false;
        options.onEvent?.({ kind: 'lost', message: lastError });
      }
    }),
  );
  client.on(
    'ready',
    cap.outside(() => {
      ready = true;
      dropped = undefined;
      // The first connection is connect()'s to report; every later one is a recovery.
      if (connected) options.onEvent?.({ kind: 'ready' });
    }),
  );
  try {
    await withDeadline(
      cap.run(() => client.connect()),
      { ms: connectTimeout * 3, what: `connecting to ${where}` },
    );
  } catch (error) {
    client.destroy();
    cap.close();
    throw new StoreUnavailableError(`The shared store at ${where} cannot be reached: ${lastError || messageOf(error)}`);
  }
  ready = true;
  connected = true;

  /**
   * Drops the connection and opens it again (a command's deadline passed): the reply it waited
   * for may still come, half or whole, and must not be read as the next command's. The commands
   * waiting on it fail at once; the client reconnects as it does after a loss, forever.
   */
  function drop(reason: string): void {
    if (closed || !ready) return;
    ready = false;
    dropped = reason;
    options.onEvent?.({ kind: 'lost', message: reason });
    client.destroy();
    cap
      .run(() => client.connect())
      .catch(() => {
        // Only a close() while reconnecting stops connect(): nothing is left to do.
      })
      .finally(() => {
        // A reconnection that completes after close() (on a loaded machine it can) is closed too.
        if (closed) client.destroy();
      });
  }

  const unavailable = (error: unknown) =>
    new StoreUnavailableError(`The mock's shared store cannot be reached now (${messageOf(error)}); try again shortly.`);

  const counts: Record<string, number> = {};
  async function command(args: readonly (string | number)[]): Promise<RedisReply> {
    sent += 1;
    const name = String(args[0]);
    counts[name] = (counts[name] ?? 0) + 1;
    const epoch = client.socketEpoch;
    try {
      // The client's own `timeout` covers only the wait to be written, not the wait for the
      // answer: a hung server would hold the request for ever. The deadline covers both.
      return (await withDeadline(client.sendCommand(args.map(String), { timeout: commandTimeout }), {
        ms: commandTimeout,
        what: `${name.slice(0, 12)} on the shared store`,
        onDeadline: (message) => {
          // Only the connection the command went out on; a later one owes it nothing.
          if (client.socketEpoch === epoch) drop(`${message}; the connection was dropped and is being reopened`);
        },
      })) as RedisReply;
    } catch (error) {
      // A script's own error (a bug) is not an outage.
      if (error instanceof Error && /^(ERR|WRONGTYPE|NOSCRIPT)/.test(error.message)) throw error;
      // The commands a drop failed say why it was dropped, not the client's "Disconnects client".
      throw unavailable(dropped ?? error);
    }
  }

  return {
    command,
    async run(script, runOptions) {
      const tail = [String(runOptions.keys.length), ...runOptions.keys, ...runOptions.args.map(String)];
      try {
        return await command(['EVALSHA', script.sha1, ...tail]);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
        return command(['EVAL', script.source, ...tail]);
      }
    },
    async subscribe(channel, listener) {
      try {
        await client.SUBSCRIBE(channel, cap.outside(listener));
      } catch (error) {
        throw unavailable(error);
      }
    },
    async unsubscribe(channel) {
      try {
        await client.UNSUBSCRIBE(channel);
      } catch (error) {
        throw unavailable(error);
      }
    },
    maxReplyBytes,
    get commandsSent() {
      return sent;
    },
    commandCounts: () => ({ ...counts }),
    async close() {
      closed = true;
      cap.close();
      try {
        await withDeadline(client.close ? client.close() : (client.quit?.() ?? Promise.resolve()), { ms: 500, what: 'closing' });
      } catch {
        client.destroy();
      }
    },
  };
}

/** The port the client connects to, to tell its sockets from others (reply-cap.ts). */
function portOf(url: string): number {
  try {
    return Number(new URL(url).port || 6379);
  } catch {
    return 6379;
  }
}

function passwordOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}

function describe(error: unknown): string {
  const message = String((error as Error)?.message ?? error);
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}

function withDeadline<T>(work: Promise<T>, options: { ms: number; what: string; onDeadline?: (message: string) => void }): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const message = `${options.what} took over ${options.ms} ms`;
      options.onDeadline?.(message);
      reject(new Error(message));
    }, options.ms);
    timer.unref?.();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
