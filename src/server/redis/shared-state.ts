/**
 * @module server/redis/shared-state
 * Everything replicas share through one Redis (docs/scale-out.md): the job and idempotency-key
 * stores, the replica link (scenarios, resets, counted faults) and the journal, a capped
 * stream that every replica writes and any replica reads; and each named session's own part
 * of them, every key of which expires with the session, with a registry of every replica's
 * sessions. Opened by `startMockServer` when `store` names Redis; nothing else in the
 * mock changes.
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
  type MockEngineOptions,
  pageLimits,
  type SessionShare,
  type SessionSummary,
  systemClock,
} from '../../engine/index.js';
import { openRedisConnection, type RedisConnection, redisScript } from './redis-connection.js';
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
  /** The sessions of every replica sharing the store, this replica's `local` ones merged in. */
  readonly sessionList: (local: readonly SessionSummary[]) => Promise<SessionSummary[]>;
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
    }),
    idempotencyKeys: new RedisStore<IdempotencyRecord>({
      connection,
      namespace: storeNamespace,
      name: 'idempotency-keys',
      maxEntries: limits.maxIdempotencyKeys,
      ttlMs: limits.idempotencyKeyTtlMs,
      ...(options.clock ? { clock: options.clock } : {}),
    }),
  });
  let closed = false;
  const journalCapacity = options.journalCapacity ?? 1000;
  const journal = sharedJournal({ connection, key: `{${namespace}}:journal`, capacity: journalCapacity });
  // Every key of a session lives as long as its longest-lived entry may, renewed as it is used.
  const keepMs = Math.max(limits.jobTtlMs, limits.idempotencyKeyTtlMs, limits.sessionIdleMs);
  const registry = sessionRegistry({
    connection,
    namespace,
    replicaId,
    keepMs,
    maxListed: Math.max(1, limits.maxSessions) * 8,
    clock: options.clock ?? systemClock,
  });
  const sessions = sessionShares({
    connection,
    subscriber,
    namespace,
    replicaId,
    limits,
    journalCapacity,
    stores,
    log: options.log,
    keepMs,
    registry,
    clock: options.clock ?? systemClock,
  });
  onSubscriberReady = () => {
    link.resync();
    sessions.resync();
  };

  return {
    engineOptions: { stores: stores(namespace), replicaLink: link, onJournalEntry: journal.append, sessionShare: sessions.share },
    journal,
    sessionJournal: sessions.journal,
    sessionList: registry.list,
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
  stores: (namespace: string) => { jobs: RedisStore<JobRecord>; idempotencyKeys: RedisStore<IdempotencyRecord> };
  log: ((line: string) => void) | undefined;
  /** How long every key of a session lives after its last use. */
  keepMs: number;
  registry: SessionRegistry;
  clock: Clock;
}): { share: (session: string) => SessionShare; journal: (session: string) => SharedJournal; resync(): void; close(): Promise<void> } {
  const links = new Map<string, ReturnType<typeof createRedisLink>>();
  const journals = new Map<string, ReturnType<typeof sharedJournal>>();
  const journalKey = (session: string) => `{${options.namespace}~${session}}:journal`;
  const journalOf = (session: string) => {
    let found = journals.get(session);
    if (!found) {
      found = sharedJournal({
        connection: options.connection,
        key: journalKey(session),
        capacity: options.journalCapacity,
        keepMs: options.keepMs,
      });
      journals.set(session, found);
    }
    return found;
  };
  // Renewals are at most this often per session and replica: a busy session costs no extra round trip per call.
  const renewEveryMs = Math.min(1000, Math.max(1, Math.floor(options.keepMs / 10)));
  return {
    share(session) {
      const namespace = `${options.namespace}~${session}`;
      const link = createRedisLink({
        connection: options.connection,
        subscriber: options.subscriber,
        namespace,
        replicaId: options.replicaId,
        maxRegistered: options.limits.maxRegisteredScenarios,
        keepMs: options.keepMs,
        ...(options.log ? { log: options.log } : {}),
      });
      links.get(session)?.close({ unsubscribe: true });
      links.set(session, link);
      // Subscribed before the state is read, so no change made in between is missed.
      const started = link.start();
      const journal = journalOf(session);
      const stores = options.stores(namespace);
      // Every key the session writes but its entries (which carry their own time to live, no longer than this).
      const sessionKeys = [...link.stateKeys, journalKey(session), ...stores.jobs.ownKeys, ...stores.idempotencyKeys.ownKeys];
      let renewedAt = Number.NEGATIVE_INFINITY;
      return {
        stores,
        replicaLink: {
          ...link,
          load: async () => {
            await started;
            return link.load();
          },
        },
        onJournalEntry: journal.append,
        touch(use) {
          // Redis counts a time to live in real time, whatever the engine's clock: so do renewals.
          const real = performance.now();
          if (real - renewedAt < renewEveryMs) return;
          renewedAt = real;
          const now = options.clock.now();
          // Not awaited: a renewal that fails (the store away) is made again at the next use.
          options.connection.run(renewScript, { keys: sessionKeys, args: [options.keepMs] }).catch(() => {
            renewedAt = Number.NEGATIVE_INFINITY;
          });
          options.registry.note({ name: session, ...use, now }).catch(() => undefined);
        },
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

/** KEYS: a session's keys. ARGV: time to live ms. Renews every key there is; a key not made yet is made with one. */
const renewScript = redisScript(`
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
return #KEYS`);

/**
 * KEYS: sessions hash, by-use sorted set. ARGV: name, replica, calls, scenario, now, keep ms,
 * max listed. Notes one use of a session on one replica: its calls there, the scenario in force,
 * when it was made and last used. Sessions unused for keep ms, and the least recently used past
 * max listed, are forgotten, so the registry is bounded and expires as the sessions do.
 */
const noteScript = redisScript(`
local held = redis.call('HGET', KEYS[1], ARGV[1])
local info = held and cjson.decode(held) or {}
local now = tonumber(ARGV[5])
if type(info.createdAt) ~= 'number' then info.createdAt = now end
info.lastUsedAt = now
info.scenario = ARGV[4]
if type(info.calls) ~= 'table' then info.calls = {} end
info.calls[ARGV[2]] = tonumber(ARGV[3])
local replicas = 0
for replica in pairs(info.calls) do
  replicas = replicas + 1
  if replicas > 32 then info.calls[replica] = nil end
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(info))
redis.call('ZADD', KEYS[2], now, ARGV[1])
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. (now - tonumber(ARGV[6])), 'LIMIT', 0, 100)
for i = 1, #stale do redis.call('HDEL', KEYS[1], stale[i]) redis.call('ZREM', KEYS[2], stale[i]) end
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[7])
if over > 0 then
  local oldest = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #oldest, 2 do redis.call('HDEL', KEYS[1], oldest[i]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return 1`);

/** KEYS: sessions hash, by-use sorted set. ARGV: now, keep ms, max listed. The sessions used within keep ms, most recent first. */
const listScript = redisScript(`
local names = redis.call('ZREVRANGEBYSCORE', KEYS[2], '+inf', tonumber(ARGV[1]) - tonumber(ARGV[2]), 'LIMIT', 0, tonumber(ARGV[3]))
if #names == 0 then return {} end
local infos = redis.call('HMGET', KEYS[1], unpack(names))
local out = {}
for i = 1, #names do
  out[#out + 1] = names[i]
  out[#out + 1] = infos[i] or ''
end
return out`);

interface SessionRegistry {
  note(use: { name: string; scenario: string; calls: number; now: number }): Promise<unknown>;
  list(local: readonly SessionSummary[]): Promise<SessionSummary[]>;
}

/**
 * The sessions of every replica: each replica notes the sessions it uses in a hash of
 * the namespace (bounded, expiring as the sessions do), so `GET /__mock/sessions` on any replica
 * lists them all. A session's calls are the sum of each replica's count.
 */
function sessionRegistry(options: {
  connection: RedisConnection;
  namespace: string;
  replicaId: string;
  keepMs: number;
  maxListed: number;
  clock: Clock;
}): SessionRegistry {
  const keys = [`{${options.namespace}}:sessions`, `{${options.namespace}}:sessions:by-use`];
  return {
    note: (use) =>
      options.connection.run(noteScript, {
        keys,
        args: [use.name, options.replicaId, use.calls, use.scenario, use.now, options.keepMs, options.maxListed],
      }),
    async list(local) {
      const reply = (await options.connection.run(listScript, {
        keys,
        args: [options.clock.now(), options.keepMs, options.maxListed],
      })) as string[];
      const localByName = new Map(local.map((summary) => [summary.name, summary]));
      const shared: SessionSummary[] = [];
      for (let index = 0; index + 1 < reply.length; index += 2) {
        const name = String(reply[index]);
        const summary = registeredSummary({
          name,
          text: String(reply[index + 1]),
          replicaId: options.replicaId,
          local: localByName.get(name),
        });
        if (summary) shared.push(summary);
        localByName.delete(name);
      }
      // The default session first, as a lone mock lists it; then every other, the most recently used first.
      const defaultSession = localByName.get('default');
      localByName.delete('default');
      const others = [...shared, ...localByName.values()].sort((left, right) => right.lastUsedAt - left.lastUsedAt);
      return defaultSession ? [defaultSession, ...others] : others;
    },
  };
}

/** One registry entry as a summary, this replica's own view of it merged in; undefined for one that is not ours. */
function registeredSummary(options: {
  name: string;
  text: string;
  replicaId: string;
  local: SessionSummary | undefined;
}): SessionSummary | undefined {
  const { name, local } = options;
  if (!/^[A-Za-z0-9._~-]{1,64}$/.test(name) || name === 'default') return undefined;
  let info: { createdAt?: unknown; lastUsedAt?: unknown; scenario?: unknown; calls?: unknown };
  try {
    info = JSON.parse(options.text) as typeof info;
  } catch {
    return local;
  }
  let calls = 0;
  if (info.calls && typeof info.calls === 'object') {
    for (const [replica, count] of Object.entries(info.calls as Record<string, unknown>)) {
      // This replica's own count is the live one, when it holds the session.
      if (replica === options.replicaId && local) continue;
      if (typeof count === 'number' && Number.isFinite(count) && count >= 0) calls += count;
    }
  }
  if (local) calls += local.calls;
  const number = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
  const lastUsedAt = Math.max(number(info.lastUsedAt, 0), local?.lastUsedAt ?? 0);
  return {
    name,
    scenario: local?.scenario ?? (typeof info.scenario === 'string' ? info.scenario.slice(0, 64) : 'default'),
    calls,
    createdAt: Math.min(number(info.createdAt, lastUsedAt), local?.createdAt ?? Number.POSITIVE_INFINITY),
    lastUsedAt,
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
function sharedJournal(options: { connection: RedisConnection; key: string; capacity: number; keepMs?: number }): SharedJournal & {
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
    const writes = entries.map((text) => connection.command(['XADD', key, 'MAXLEN', '~', capacity, '*', 'entry', text]));
    // A session's journal expires with the session.
    if (options.keepMs !== undefined) writes.push(connection.command(['PEXPIRE', key, options.keepMs]));
    writing = Promise.allSettled(writes).then(() => {
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
