/**
 * @module server/redis/shared-state
 * Everything replicas share through one Redis (docs/scale-out.md): the job and idempotency-key
 * stores, the replica link (scenarios, resets, counted faults) and the journal, a capped
 * stream that every replica writes and any replica reads. Opened by `startMockServer` when
 * `store` names Redis; nothing else in the mock changes.
 */
import {
  bundledEngineContract,
  type Clock,
  ControlError,
  defaultLimits,
  type EngineLimits,
  type IdempotencyRecord,
  type JobRecord,
  type JournalEntry,
  type JournalRequest,
  journalMatches,
  type KeyValueStore,
  type MockEngineOptions,
  pageLimits,
  type SessionShare,
} from '../../engine/index.js';
import { openRedisConnection, type RedisConnection } from './redis-connection.js';
import { createRedisLink, newReplicaId } from './redis-link.js';
import { RedisStore } from './redis-store.js';
import { redactedUrl } from './store-url.js';

export interface SharedStateOptions {
  /** redis://HOST:PORT[/DB] (a password in it is never echoed). */
  readonly url: string;
  /** Keeps several mocks apart on one Redis; default `evidence-harness`. */
  readonly namespace?: string;
  readonly limits?: EngineLimits;
  /** How many journal entries the shared stream keeps (about: Redis trims in whole nodes). Default 1000. */
  readonly journalCapacity?: number;
  readonly commandTimeoutMs?: number;
  /** Largest reply read from Redis, in bytes (openRedisConnection's maxReplyBytes). Default 16 MiB. */
  readonly maxReplyBytes?: number;
  /** The engine's clock, on which jobs and keys expire (a virtual one in tests). Default: real time. */
  readonly clock?: Clock;
  /** Told when the store is lost and found again, and of announcements ignored. */
  readonly log?: (line: string) => void;
  /**
   * The served contract's fingerprint (EngineContract.fingerprint). Replicas that validate by
   * different documents would answer one client differently by chance of the load balancer:
   * a replica whose contract differs from the one the namespace's live replicas serve is
   * refused at start with a ContractMismatchError. Default: the bundled contract's.
   */
  readonly contract?: string;
}

/** Another contract is served in this namespace by replicas alive now. */
export class ContractMismatchError extends Error {
  override readonly name = 'ContractMismatchError';
}

/** How long a namespace's contract is held after its last replica stopped renewing it. */
const contractClaimMs = 30_000;

export interface SharedJournal {
  page(options: JournalRequest): Promise<{ entries: JournalEntry[]; nextCursor?: string }>;
  clear(): Promise<void>;
}

export interface SharedState {
  /** What to give createMockEngine: the stores, the replica link and the journal's sink. */
  readonly engineOptions: Pick<MockEngineOptions, 'stores' | 'replicaLink' | 'onJournalEntry' | 'sessionShare'>;
  readonly journal: SharedJournal;
  /** A named session's shared journal. */
  readonly sessionJournal: (session: string) => SharedJournal;
  /** Redis commands sent so far by this replica (benchmarks report them per operation). */
  readonly commandsSent: () => number;
  /** The same, by command name. */
  readonly commandCounts: () => Readonly<Record<string, number>>;
  /** The URL without its password, for messages. */
  readonly where: string;
  close(): Promise<void>;
}

/** A namespace is part of every key: letters, digits and `._-` only, so it cannot break the hash tag. */
export function checkNamespace(namespace: string): string {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(namespace)) {
    throw new TypeError(`a store namespace is 1 to 64 letters, digits, '.', '_' or '-'; got '${namespace.slice(0, 70)}'`);
  }
  return namespace;
}

export async function openSharedState(options: SharedStateOptions): Promise<SharedState> {
  const namespace = checkNamespace(options.namespace ?? 'evidence-harness');
  const limits = { ...defaultLimits, ...definedOnly(options.limits ?? {}) };
  const where = redactedUrl(options.url);
  const replicaId = newReplicaId();
  // The link's resync needs the link, which needs the subscriber: bound once both exist.
  let onSubscriberReady: () => void = () => undefined;
  const connect = (role: string, onReady?: () => void): Promise<RedisConnection> =>
    openRedisConnection({
      url: options.url,
      ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
      ...(options.maxReplyBytes === undefined ? {} : { maxReplyBytes: options.maxReplyBytes }),
      onEvent: (event) => {
        if (event.kind === 'lost' && role === 'commands') options.log?.(`shared store ${where} lost: ${event.message ?? ''}`);
        if (event.kind === 'ready') {
          if (role === 'commands') options.log?.(`shared store ${where} reachable again`);
          onReady?.();
        }
      },
    });
  const connection = await connect('commands');
  let subscriber: RedisConnection;
  try {
    subscriber = await connect('subscriber', () => onSubscriberReady());
  } catch (error) {
    await connection.close();
    throw error;
  }
  const link = createRedisLink({
    connection,
    subscriber,
    namespace,
    replicaId,
    maxRegistered: limits.maxRegisteredScenarios,
    ...(options.log ? { log: options.log } : {}),
  });
  onSubscriberReady = () => link.resync();
  try {
    await link.start();
  } catch (error) {
    await Promise.all([connection.close(), subscriber.close()]);
    throw error;
  }

  let claim: ContractClaim;
  try {
    claim = await claimContract({
      connection,
      key: `{${namespace}}:contract`,
      fingerprint: options.contract ?? bundledEngineContract.fingerprint,
      namespace,
    });
  } catch (error) {
    link.close();
    await Promise.all([connection.close(), subscriber.close()]);
    throw error;
  }

  const stores = (storeNamespace: string) => ({
    jobs: new RedisStore<JobRecord>({
      connection,
      namespace: storeNamespace,
      name: 'jobs',
      maxEntries: limits.maxJobs,
      ttlMs: limits.jobTtlMs,
      ...(options.clock ? { clock: options.clock } : {}),
    }) as KeyValueStore<JobRecord>,
    idempotencyKeys: new RedisStore<IdempotencyRecord>({
      connection,
      namespace: storeNamespace,
      name: 'idempotency-keys',
      maxEntries: limits.maxIdempotencyKeys,
      ttlMs: limits.idempotencyKeyTtlMs,
      ...(options.clock ? { clock: options.clock } : {}),
    }) as KeyValueStore<IdempotencyRecord>,
  });
  let closed = false;
  const journalCapacity = options.journalCapacity ?? 1000;
  const journal = sharedJournal({ connection, key: `{${namespace}}:journal`, capacity: journalCapacity });
  const sessions = sessionShares({ connection, subscriber, namespace, replicaId, limits, journalCapacity, stores, log: options.log });
  onSubscriberReady = () => {
    link.resync();
    sessions.resync();
  };

  return {
    engineOptions: { stores: stores(namespace), replicaLink: link, onJournalEntry: journal.append, sessionShare: sessions.share },
    journal,
    sessionJournal: sessions.journal,
    commandsSent: () => connection.commandsSent,
    commandCounts: () => connection.commandCounts(),
    where,
    async close() {
      if (closed) return;
      closed = true;
      claim.stop();
      link.close();
      await Promise.all([journal.flush(), sessions.close()]);
      await Promise.all([connection.close(), subscriber.close()]);
    },
  };
}

/**
 * Each named session's part of the store: its own key prefix (the namespace, '~', the
 * session: '~' is in no namespace, so no session's keys can be another mock's), so its jobs,
 * keys, scenario and journal are one on every replica, and apart from every other session's.
 */
function sessionShares(options: {
  connection: RedisConnection;
  subscriber: RedisConnection;
  namespace: string;
  replicaId: string;
  limits: { maxRegisteredScenarios: number };
  journalCapacity: number;
  stores: (namespace: string) => NonNullable<SessionShare['stores']>;
  log: ((line: string) => void) | undefined;
}): { share: (session: string) => SessionShare; journal: (session: string) => SharedJournal; resync(): void; close(): Promise<void> } {
  const links = new Map<string, ReturnType<typeof createRedisLink>>();
  const journals = new Map<string, ReturnType<typeof sharedJournal>>();
  const journalOf = (session: string) => {
    let found = journals.get(session);
    if (!found) {
      found = sharedJournal({
        connection: options.connection,
        key: `{${options.namespace}~${session}}:journal`,
        capacity: options.journalCapacity,
      });
      journals.set(session, found);
    }
    return found;
  };
  return {
    share(session) {
      const namespace = `${options.namespace}~${session}`;
      const link = createRedisLink({
        connection: options.connection,
        subscriber: options.subscriber,
        namespace,
        replicaId: options.replicaId,
        maxRegistered: options.limits.maxRegisteredScenarios,
        ...(options.log ? { log: options.log } : {}),
      });
      links.get(session)?.close({ unsubscribe: true });
      links.set(session, link);
      // Subscribed before the state is read, so no change made in between is missed.
      const started = link.start();
      const journal = journalOf(session);
      return {
        stores: options.stores(namespace),
        replicaLink: {
          ...link,
          load: async () => {
            await started;
            return link.load();
          },
        },
        onJournalEntry: journal.append,
        close() {
          link.close({ unsubscribe: true });
          if (links.get(session) === link) links.delete(session);
          void journal.flush().then(() => {
            if (journals.get(session) === journal) journals.delete(session);
          });
        },
      };
    },
    journal: journalOf,
    resync() {
      for (const link of links.values()) link.resync();
    },
    async close() {
      for (const link of links.values()) link.close();
      await Promise.all([...journals.values()].map((journal) => journal.flush()));
    },
  };
}

interface ContractClaim {
  stop(): void;
}

/**
 * Claims the namespace for `fingerprint`, or throws a ContractMismatchError naming the contract
 * its live replicas serve. The claim expires unless renewed, so once every replica of the old
 * contract has stopped, replicas of a new one may start (within contractClaimMs).
 */
async function claimContract(options: {
  connection: RedisConnection;
  key: string;
  fingerprint: string;
  namespace: string;
}): Promise<ContractClaim> {
  const { connection, key, fingerprint } = options;
  const ttl = String(contractClaimMs);
  const set = await connection.command(['SET', key, fingerprint, 'NX', 'PX', ttl]);
  if (set === null) {
    const held = await connection.command(['GET', key]);
    // Expired between the two commands: take it.
    if (held === null) await connection.command(['SET', key, fingerprint, 'PX', ttl]);
    else if (String(held) !== fingerprint) {
      throw new ContractMismatchError(
        `the replicas sharing namespace '${options.namespace}' serve contract ${quoteFingerprint(String(held))}, and this one would serve ${quoteFingerprint(fingerprint)}: start every replica with the same --spec (or none), or give this one another --store-namespace. A namespace forgets its contract ${contractClaimMs / 1000} s after its last replica stops.`,
      );
    } else await connection.command(['PEXPIRE', key, ttl]);
  }
  const renew = setInterval(() => {
    connection.command(['SET', key, fingerprint, 'PX', ttl]).catch(() => {
      // The store is away: the connection says so; the next renewal tries again.
    });
  }, contractClaimMs / 3);
  renew.unref?.();
  return { stop: () => clearInterval(renew) };
}

/** A fingerprint from the store is another process's text: shown cut and quoted. */
function quoteFingerprint(fingerprint: string): string {
  return `'${fingerprint.slice(0, 80).replace(/[^\x20-\x7e]/g, '?')}'`;
}

function definedOnly(limits: EngineLimits): Record<string, number> {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined)) as Record<string, number>;
}

/**
 * The journal as a capped stream. Entries are appended in batches (one pipelined write every
 * few milliseconds, not one awaited command per request), so the journal adds no round trip
 * to any operation; while the store is away they are dropped, as a full ring drops its oldest.
 */
function sharedJournal(options: { connection: RedisConnection; key: string; capacity: number }): SharedJournal & {
  append(entry: JournalEntry): void;
  flush(): Promise<void>;
} {
  const { connection, key, capacity } = options;
  let batch: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();
  let inFlight = false;

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    // One batch on its way at a time: while the store hangs, entries wait here (at most 500)
    // instead of piling up in the client's queue, where the stores' own commands wait too.
    if (inFlight) return writing;
    const entries = batch;
    batch = [];
    if (entries.length === 0) return writing;
    inFlight = true;
    writing = Promise.allSettled(
      entries.map((text) => connection.command(['XADD', key, 'MAXLEN', '~', capacity, '*', 'entry', text])),
    ).then(() => {
      inFlight = false;
      if (batch.length > 0) schedule();
    });
    return writing;
  }

  function schedule(): void {
    timer ??= setTimeout(() => void flush(), 5);
    timer.unref?.();
  }

  return {
    append(entry) {
      batch.push(JSON.stringify(entry));
      // A burst is bounded: past a batch of 500 the oldest unsent go, as the stream would drop them.
      if (batch.length > 500) batch.splice(0, batch.length - 500);
      schedule();
    },
    flush,
    async page(request) {
      await flush();
      const limit = request.limit ?? pageLimits.default;
      if (!(Number.isInteger(limit) && limit >= 1 && limit <= pageLimits.max)) {
        throw new ControlError(`limit must be a whole number from 1 to ${pageLimits.max}, got ${String(limit).slice(0, 20)}`, 'invalid');
      }
      const cursor = request.cursor;
      // The shared journal's cursors are the stream's entry ids.
      if (cursor !== undefined && !/^[0-9]{1,15}-[0-9]{1,10}$/.test(cursor)) {
        throw new ControlError(`cursor '${cursor.slice(0, 40)}' is not one this mock gave`, 'invalid');
      }
      return readStream({ connection, key, limit, capacity, request });
    },
    async clear() {
      // Entries recorded before the clear, still on their way, must not land after it.
      batch = [];
      await writing;
      batch = [];
      await connection.command(['DEL', key]);
    },
  };
}

/**
 * A page of the journal stream: the entries that match the request's filter, oldest or newest
 * first, past its cursor (a stream id). Read in batches, at most twice the capacity in all (the
 * stream is trimmed near it), so a filter that matches little never reads without end.
 */
async function readStream(options: {
  connection: RedisConnection;
  key: string;
  limit: number;
  capacity: number;
  request: JournalRequest;
}): Promise<{ entries: JournalEntry[]; nextCursor?: string }> {
  const { connection, key, limit, request } = options;
  const newest = request.order === 'newest';
  const batch = request.filter ? 200 : limit + 1;
  const entries: JournalEntry[] = [];
  let lastId: string | undefined;
  let from = request.cursor === undefined ? undefined : `(${request.cursor}`;
  for (let scanned = 0; scanned < options.capacity * 2 + batch; ) {
    const range = newest ? ['XREVRANGE', key, from ?? '+', '-'] : ['XRANGE', key, from ?? '-', '+'];
    const rows = (await connection.command([...range, 'COUNT', batch])) as [string, string[]][];
    scanned += rows.length;
    for (const [id, fields] of rows) {
      let entry: JournalEntry;
      try {
        entry = JSON.parse(fields[1] ?? '') as JournalEntry;
      } catch {
        continue; // Not one of ours: left out.
      }
      if (!journalMatches(entry, request.filter)) continue;
      if (entries.length === limit) return lastId ? { entries, nextCursor: lastId } : { entries };
      entries.push(entry);
      lastId = id;
    }
    if (rows.length < batch) break;
    from = `(${rows.at(-1)![0]}`;
  }
  return { entries };
}
