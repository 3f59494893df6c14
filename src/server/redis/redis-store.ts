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
import { type Clock, type KeyValueStore, type StoreEntry, type StorePage, systemClock } from '../../engine/index.js';
import { type RedisConnection, type RedisReply, redisScript } from './redis-connection.js';

/**
 * A stored value is `<version>|<expires at>|<JSON>`: one string, so one GET reads all three.
 * The expiry time is on the engine's clock (a virtual one in tests), checked by every script
 * against the `now` it is given, so an entry expires when the engine says, as in memory; the
 * key's own TTL (PX) lets Redis reclaim the memory on its clock.
 */
const readEntry = `
local function live(key, now)
  local value = redis.call('GET', key)
  if not value then return nil end
  local first = string.find(value, '|', 1, true)
  local second = string.find(value, '|', first + 1, true)
  if tonumber(string.sub(value, first + 1, second - 1)) <= tonumber(now) then
    redis.call('DEL', key)
    return nil
  end
  return value
end`;

/** KEYS: entry. ARGV: now. */
const getScript = redisScript(`${readEntry}
return live(KEYS[1], ARGV[1])`);

/** KEYS: entry, index, sequence. ARGV: JSON, ttl ms, max entries, index member, entry key prefix, now. */
const insertScript = redisScript(`${readEntry}
local held = live(KEYS[1], ARGV[6])
if held then return {0, held} end
local seq = redis.call('INCR', KEYS[3])
local value = '1|' .. (tonumber(ARGV[6]) + tonumber(ARGV[2])) .. '|' .. ARGV[1]
redis.call('SET', KEYS[1], value, 'PX', ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[4])
redis.call('ZADD', KEYS[2], seq, ARGV[4])
-- The index and the sequence outlive the newest entry, and no longer: none is left behind for ever (A-60).
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if over > 0 then
  local oldest = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #oldest, 2 do redis.call('DEL', ARGV[5] .. oldest[i]) end
end
-- Entries that expired leave their index member behind: drop a few from the head per insert.
local head = redis.call('ZRANGE', KEYS[2], 0, 7)
for i = 1, #head do
  if live(ARGV[5] .. head[i], ARGV[6]) then break end
  redis.call('ZREM', KEYS[2], head[i])
end
return {1, value}`);

/** KEYS: entry. ARGV: expected version, JSON, now. */
const compareAndSetScript = redisScript(`${readEntry}
local value = live(KEYS[1], ARGV[3])
if not value then return nil end
local first = string.find(value, '|', 1, true)
local second = string.find(value, '|', first + 1, true)
local version = tonumber(string.sub(value, 1, first - 1))
if version ~= tonumber(ARGV[1]) then return nil end
local next = (version + 1) .. string.sub(value, first, second) .. ARGV[2]
redis.call('SET', KEYS[1], next, 'KEEPTTL')
return next`);

/** KEYS: entry, index. ARGV: index member. */
const deleteScript = redisScript(`
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1`);

/**
 * KEYS: index, sequence. ARGV: after (score), limit, entry key prefix, now, max bytes. Reads the
 * index one row past the limit: whether that row exists says whether a next page does. The page
 * also ends before its values pass max bytes (one value always goes), so that no page of large
 * records is a reply past the connection's cap: the next page starts after its last row.
 */
const pageScript = redisScript(`${readEntry}
local limit = tonumber(ARGV[2])
local budget = tonumber(ARGV[5])
local rows = redis.call('ZRANGE', KEYS[1], '(' .. ARGV[1], '+inf', 'BYSCORE', 'LIMIT', 0, limit + 1, 'WITHSCORES')
local more = #rows / 2 > limit
local scanned = math.min(#rows, limit * 2)
local out = {tonumber(redis.call('GET', KEYS[2]) or '0'), 0, '0'}
local bytes = 0
local last = 0
for i = 1, scanned, 2 do
  local value = live(ARGV[3] .. rows[i], ARGV[4])
  if value and #out > 3 and bytes + #value > budget then
    more = true
    break
  end
  last = i
  if value then
    bytes = bytes + #value
    out[#out + 1] = rows[i]
    out[#out + 1] = rows[i + 1]
    out[#out + 1] = value
  end
end
out[2] = more and 1 or 0
if last > 0 then out[3] = rows[last + 1] end
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
  /** The engine's clock, on which entries expire. Default: real time. */
  readonly clock?: Clock;
}

export class RedisStore<T> implements KeyValueStore<T> {
  private readonly prefix: string;
  private readonly indexKey: string;
  private readonly sequenceKey: string;
  private readonly clock: Clock;

  constructor(private readonly options: RedisStoreOptions) {
    if (!(options.maxEntries >= 1)) throw new RangeError(`RedisStore: maxEntries must be at least 1, got ${options.maxEntries}`);
    if (!(options.ttlMs >= 1)) throw new RangeError(`RedisStore: ttlMs must be at least 1, got ${options.ttlMs}`);
    const base = `{${options.namespace}}:${options.name}`;
    this.prefix = `${base}:entry:`;
    this.indexKey = `${base}:index`;
    this.sequenceKey = `${base}:sequence`;
    this.clock = options.clock ?? systemClock;
  }

  /** The store's own keys (its index and sequence), which a session renews with its other keys. */
  get ownKeys(): readonly string[] {
    return [this.indexKey, this.sequenceKey];
  }

  async get(key: string): Promise<StoreEntry<T> | undefined> {
    const reply = await this.options.connection.run(getScript, { keys: [this.prefix + key], args: [this.clock.now()] });
    return reply === null ? undefined : decodeEntry<T>(reply as string);
  }

  async insertIfAbsent(key: string, value: T): Promise<{ readonly inserted: boolean; readonly entry: StoreEntry<T> }> {
    const reply = (await this.options.connection.run(insertScript, {
      keys: [this.prefix + key, this.indexKey, this.sequenceKey],
      args: [JSON.stringify(value), this.options.ttlMs, this.options.maxEntries, key, this.prefix, this.clock.now()],
    })) as [number, string];
    return { inserted: reply[0] === 1, entry: decodeEntry<T>(reply[1]) };
  }

  async compareAndSet(key: string, expectedVersion: number, value: T): Promise<StoreEntry<T> | undefined> {
    const reply = await this.options.connection.run(compareAndSetScript, {
      keys: [this.prefix + key],
      args: [expectedVersion, JSON.stringify(value), this.clock.now()],
    });
    return reply === null ? undefined : decodeEntry<T>(reply as string);
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
      // A quarter of the reply cap (4 MiB by default): a page of 1000 records of up to a
      // scenario's size each would be hundreds of megabytes.
      args: [after, options.limit, this.prefix, this.clock.now(), Math.floor(this.options.connection.maxReplyBytes / 4)],
    })) as RedisReply[];
    const [issued, more, lastScanned] = reply as [number, number, string];
    // As the in-memory store does: a cursor past every number given so far was never given.
    if (after > issued) throw new TypeError(`not a cursor of this store: '${(options.cursor ?? '').slice(0, 40)}'`);
    const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    const entries: Array<readonly [string, StoreEntry<T>]> = [];
    let bytes = 0;
    let last = after;
    for (let index = 3; index < reply.length; index += 3) {
      const value = reply[index + 2] as string;
      if (entries.length > 0 && bytes + value.length * 2 > maxBytes) return { entries, next: String(last) };
      entries.push([reply[index] as string, decodeEntry<T>(value)]);
      bytes += value.length * 2;
      last = Number(reply[index + 1]);
    }
    // More rows after this page's last (read, expired or not): the next page starts there.
    if (more === 1) return { entries, next: lastScanned };
    return { entries };
  }

  async clear(): Promise<void> {
    // In slices of 1000, so no one script holds Redis for long with 100,000 entries.
    for (let left = 1; left > 0; ) {
      left = (await this.options.connection.run(clearScript, { keys: [this.indexKey], args: [this.prefix] })) as number;
    }
  }
}

function decodeEntry<T>(stored: string): StoreEntry<T> {
  const first = stored.indexOf('|');
  const second = stored.indexOf('|', first + 1);
  return {
    value: JSON.parse(stored.slice(second + 1)) as T,
    version: Number(stored.slice(0, first)),
    expiresAt: Number(stored.slice(first + 1, second)),
  };
}
