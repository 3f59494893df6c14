/**
 * @module server/redis/redis-store
 * The engine's KeyValueStore over Redis, for replicas sharing one mock (docs/scale-out.md).
 * Each operation is one round trip (a Lua script run by digest), so insert-if-absent and
 * compare-and-set are atomic across replicas. Bounds are kept by Redis itself: every entry has
 * a time to live (PX), and the insert that passes `maxEntries` evicts the oldest in the same
 * script, from an index ordered by insertion (a sorted set whose scores are the page cursors).
 *
 * Keys share one hash tag, `{namespace}`, so a Redis Cluster keeps a mock's keys in one slot,
 * which the scripts (which name entry keys from the index) need.
 */
import type { KeyValueStore, StoreEntry, StorePage } from '../../engine/index.js';
import { type RedisConnection, type RedisReply, redisScript } from './redis-connection.js';

/** A stored value is `<version>|<JSON>`: one string, so one GET reads both. */
const readEntry = `
local function entry(key)
  local value = redis.call('GET', key)
  if not value then return nil end
  return {value, redis.call('PTTL', key)}
end`;

const getScript = redisScript(`${readEntry}
return entry(KEYS[1])`);

/** KEYS: entry, index, sequence. ARGV: JSON, ttl ms, max entries, index member, entry key prefix. */
const insertScript = redisScript(`${readEntry}
local held = entry(KEYS[1])
if held then return {0, held[1], held[2]} end
local seq = redis.call('INCR', KEYS[3])
local value = '1|' .. ARGV[1]
redis.call('SET', KEYS[1], value, 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], seq, ARGV[4])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if over > 0 then
  local oldest = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #oldest, 2 do redis.call('DEL', ARGV[5] .. oldest[i]) end
end
-- Entries that expired leave their index member behind: drop a few from the head per insert.
local head = redis.call('ZRANGE', KEYS[2], 0, 7)
for i = 1, #head do
  if redis.call('EXISTS', ARGV[5] .. head[i]) == 1 then break end
  redis.call('ZREM', KEYS[2], head[i])
end
return {1, value, tonumber(ARGV[2])}`);

/** KEYS: entry. ARGV: expected version, JSON. */
const compareAndSetScript = redisScript(`
local value = redis.call('GET', KEYS[1])
if not value then return nil end
local bar = string.find(value, '|', 1, true)
local version = tonumber(string.sub(value, 1, bar - 1))
if version ~= tonumber(ARGV[1]) then return nil end
local next = (version + 1) .. '|' .. ARGV[2]
redis.call('SET', KEYS[1], next, 'KEEPTTL')
return {next, redis.call('PTTL', KEYS[1])}`);

/** KEYS: entry, index. ARGV: index member. */
const deleteScript = redisScript(`
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1`);

/** KEYS: index, sequence. ARGV: after (score), limit, entry key prefix. */
const pageScript = redisScript(`
local rows = redis.call('ZRANGE', KEYS[1], '(' .. ARGV[1], '+inf', 'BYSCORE', 'LIMIT', 0, ARGV[2], 'WITHSCORES')
local out = {tonumber(redis.call('GET', KEYS[2]) or '0'), #rows / 2, rows[#rows] or '0'}
for i = 1, #rows, 2 do
  local key = ARGV[3] .. rows[i]
  local value = redis.call('GET', key)
  if value then
    out[#out + 1] = rows[i]
    out[#out + 1] = rows[i + 1]
    out[#out + 1] = value
    out[#out + 1] = redis.call('PTTL', key)
  end
end
return out`);

/** KEYS: index. ARGV: entry key prefix. Deletes up to 1000 entries; returns how many are left. */
const clearScript = redisScript(`
local members = redis.call('ZRANGE', KEYS[1], 0, 999)
for i = 1, #members do redis.call('DEL', ARGV[1] .. members[i]) end
if #members > 0 then redis.call('ZREM', KEYS[1], unpack(members)) end
return redis.call('ZCARD', KEYS[1])`);

export interface RedisStoreOptions {
  readonly connection: RedisConnection;
  /** Keys start with `{namespace}:name:`; `{namespace}` is the hash tag. */
  readonly namespace: string;
  /** The store's own name within the namespace, such as `jobs`. */
  readonly name: string;
  readonly maxEntries: number;
  readonly ttlMs: number;
}

export class RedisStore<T> implements KeyValueStore<T> {
  private readonly prefix: string;
  private readonly indexKey: string;
  private readonly sequenceKey: string;

  constructor(private readonly options: RedisStoreOptions) {
    if (!(options.maxEntries >= 1)) throw new RangeError(`RedisStore: maxEntries must be at least 1, got ${options.maxEntries}`);
    if (!(options.ttlMs >= 1)) throw new RangeError(`RedisStore: ttlMs must be at least 1, got ${options.ttlMs}`);
    const base = `{${options.namespace}}:${options.name}`;
    this.prefix = `${base}:entry:`;
    this.indexKey = `${base}:index`;
    this.sequenceKey = `${base}:sequence`;
  }

  async get(key: string): Promise<StoreEntry<T> | undefined> {
    const reply = await this.options.connection.run(getScript, { keys: [this.prefix + key], args: [] });
    return reply === null ? undefined : decodeEntry<T>(reply as [string, number]);
  }

  async insertIfAbsent(key: string, value: T): Promise<{ readonly inserted: boolean; readonly entry: StoreEntry<T> }> {
    const reply = (await this.options.connection.run(insertScript, {
      keys: [this.prefix + key, this.indexKey, this.sequenceKey],
      args: [JSON.stringify(value), this.options.ttlMs, this.options.maxEntries, key, this.prefix],
    })) as [number, string, number];
    return { inserted: reply[0] === 1, entry: decodeEntry<T>([reply[1], reply[2]]) };
  }

  async compareAndSet(key: string, expectedVersion: number, value: T): Promise<StoreEntry<T> | undefined> {
    const reply = await this.options.connection.run(compareAndSetScript, {
      keys: [this.prefix + key],
      args: [expectedVersion, JSON.stringify(value)],
    });
    return reply === null ? undefined : decodeEntry<T>(reply as [string, number]);
  }

  async delete(key: string): Promise<void> {
    await this.options.connection.run(deleteScript, { keys: [this.prefix + key, this.indexKey], args: [key] });
  }

  async page(options: { readonly cursor?: string; readonly limit: number; readonly maxBytes?: number }): Promise<StorePage<T>> {
    let after = 0;
    if (options.cursor !== undefined) after = /^[1-9][0-9]{0,15}$/.test(options.cursor) ? Number(options.cursor) : Number.NaN;
    if (Number.isNaN(after)) throw new TypeError(`not a cursor of this store: '${(options.cursor ?? '').slice(0, 40)}'`);
    const reply = (await this.options.connection.run(pageScript, {
      keys: [this.indexKey, this.sequenceKey],
      args: [after, options.limit, this.prefix],
    })) as RedisReply[];
    const [issued, scanned, lastScanned] = reply as [number, number, string];
    // As the in-memory store does: a cursor past every number given so far was never given.
    if (after > issued) throw new TypeError(`not a cursor of this store: '${(options.cursor ?? '').slice(0, 40)}'`);
    const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    const entries: Array<readonly [string, StoreEntry<T>]> = [];
    let bytes = 0;
    let last = after;
    for (let index = 3; index < reply.length; index += 4) {
      const value = reply[index + 2] as string;
      if (entries.length > 0 && bytes + value.length * 2 > maxBytes) return { entries, next: String(last) };
      entries.push([reply[index] as string, decodeEntry<T>([value, reply[index + 3] as number])]);
      bytes += value.length * 2;
      last = Number(reply[index + 1]);
    }
    // A full page may have more after it (counted from the last row read, expired or not).
    if (scanned === options.limit && Number(lastScanned) < issued) return { entries, next: lastScanned };
    return { entries };
  }

  async clear(): Promise<void> {
    // In slices of 1000, so no one script holds Redis for long with 100,000 entries.
    for (let left = 1; left > 0; ) {
      left = (await this.options.connection.run(clearScript, { keys: [this.indexKey], args: [this.prefix] })) as number;
    }
  }
}

function decodeEntry<T>([stored, ttlMs]: readonly [string, number]): StoreEntry<T> {
  const bar = stored.indexOf('|');
  return {
    value: JSON.parse(stored.slice(bar + 1)) as T,
    version: Number(stored.slice(0, bar)),
    // Redis keeps the time to live; the engine only reads it. -1 (no expiry) never happens here.
    expiresAt: Date.now() + (ttlMs >= 0 ? ttlMs : 0),
  };
}
