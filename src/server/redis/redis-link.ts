/**
 * @module server/redis/redis-link
 * The engine's ReplicaLink over Redis: the shared scenario state lives in three keys (a change
 * counter, the scenario in force, the scenarios registered at run time as a capped list), and
 * each change is written and announced on a channel in one script, so a replica that reads the
 * state after the announcement sees the change. Every replica applies every announcement, its
 * own included, in the channel's order, which is the order the counter gave: replicas that
 * changed the scenario at the same moment still end in the same state. They apply what they
 * hear at once (well under the 100 ms the issue asks), and read the whole state again after a
 * lost connection, or when a change of their own could not be shared.
 */
import type { DeliveredChange, ReplicaChange, ReplicaLink, ScenarioInput, SharedScenarioState } from '../../engine/index.js';
import { type RedisConnection, redisScript } from './redis-connection.js';

/**
 * KEYS: epoch, in force, registered. ARGV: kind, scenario JSON or '', name or '', max
 * registered, channel, message, max registered bytes. The list is trimmed by count, then by
 * bytes (oldest first, the newest always kept), so reading it back stays under the reply cap.
 */
const publishScript = redisScript(`
local epoch = redis.call('INCR', KEYS[1])
if ARGV[1] == 'reset' then
  redis.call('DEL', KEYS[2], KEYS[3])
else
  if ARGV[2] ~= '' then
    redis.call('RPUSH', KEYS[3], ARGV[2])
    redis.call('LTRIM', KEYS[3], -tonumber(ARGV[4]), -1)
    local kept = redis.call('LRANGE', KEYS[3], 0, -1)
    local total = 0
    for i = 1, #kept do total = total + #kept[i] end
    local drop = 0
    while total > tonumber(ARGV[7]) and drop < #kept - 1 do
      drop = drop + 1
      total = total - #kept[drop]
    end
    if drop > 0 then redis.call('LTRIM', KEYS[3], drop, -1) end
  end
  if ARGV[1] == 'use' then redis.call('SET', KEYS[2], ARGV[3]) end
end
redis.call('PUBLISH', ARGV[5], epoch .. '|' .. ARGV[6])
return epoch`);

/**
 * KEYS: epoch, in force, registered. ARGV: max registered bytes. The newest scenarios that fit
 * in max bytes: the publish script keeps the list within them, and a list written otherwise
 * (by hand, or by another version) still reads back under the reply cap.
 */
const loadScript = redisScript(`
local list = redis.call('LRANGE', KEYS[3], 0, -1)
local first = #list + 1
local total = 0
for i = #list, 1, -1 do
  total = total + #list[i]
  if total > tonumber(ARGV[1]) then break end
  first = i
end
local kept = {}
for i = first, #list do kept[#kept + 1] = list[i] end
return {redis.call('GET', KEYS[1]) or '0', redis.call('GET', KEYS[2]) or '', kept}`);

/** KEYS: counter. ARGV: ttl ms. */
const countScript = redisScript(`
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`);

export interface RedisLinkOptions {
  /** Commands and scripts. */
  readonly connection: RedisConnection;
  /** A second connection: one that subscribes can send nothing else. */
  readonly subscriber: RedisConnection;
  readonly namespace: string;
  /** This replica's name, carried in its announcements (for whoever reads the channel). */
  readonly replicaId: string;
  /** How many run-time scenarios the shared list keeps (the engine's maxRegisteredScenarios). */
  readonly maxRegistered: number;
}

export interface RedisLink extends ReplicaLink {
  /** Subscribes to the channel; called once, before the engine asks for anything. */
  start(): Promise<void>;
  /** For the subscriber connection's `ready` after a loss: read the state again. */
  resync(): void;
  /** Stops a resync that is still trying. */
  close(): void;
}

export function createRedisLink(options: RedisLinkOptions): RedisLink {
  const tag = `{${options.namespace}}`;
  const keys = [`${tag}:scenario:epoch`, `${tag}:scenario:in-force`, `${tag}:scenario:registered`];
  const channel = `${tag}:changes`;
  // The shared list's bytes: half the reply cap, so the state read back (the list and two
  // short values) always fits. By default 8 MiB, what the engine's own registry holds of ASCII
  // JSON (maxScenarioRegistryBytes, 16 MiB at two bytes a character).
  const maxRegisteredBytes = Math.floor(options.connection.maxReplyBytes / 2);
  let listeners: Parameters<ReplicaLink['subscribe']>[0] | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  /** Reads the shared state and hands it over; while the store does not answer, tries again every 500 ms. */
  function resync(): void {
    if (retry || closed) return;
    load().then(
      (state) => listeners?.resync(state),
      () => {
        retry = setTimeout(() => {
          retry = undefined;
          resync();
        }, 500);
        retry.unref?.();
      },
    );
  }

  async function load(): Promise<SharedScenarioState | undefined> {
    const [epoch, inForce, registered] = (await options.connection.run(loadScript, { keys, args: [maxRegisteredBytes] })) as [
      string,
      string,
      string[],
    ];
    if (epoch === '0') return undefined;
    return {
      epoch: Number(epoch),
      ...(inForce === '' ? {} : { inForce }),
      registered: registered.flatMap((text) => {
        try {
          return [JSON.parse(text) as ScenarioInput];
        } catch {
          return [];
        }
      }),
    };
  }

  function hear(message: string): void {
    // `<epoch>|<replica>|<change JSON>`
    const first = message.indexOf('|');
    const second = message.indexOf('|', first + 1);
    if (first < 0 || second < 0) return;
    let change: ReplicaChange;
    try {
      change = JSON.parse(message.slice(second + 1)) as ReplicaChange;
    } catch {
      return;
    }
    listeners?.change({ ...change, epoch: Number(message.slice(0, first)) } as DeliveredChange);
  }

  return {
    load,
    async publish(change) {
      const scenarioJson = change.kind === 'reset' || typeof change.scenario === 'string' ? '' : JSON.stringify(change.scenario);
      const name =
        change.kind === 'use'
          ? typeof change.scenario === 'string'
            ? change.scenario
            : String((change.scenario as { name?: unknown }).name)
          : '';
      const epoch = await options.connection.run(publishScript, {
        keys,
        args: [
          change.kind,
          scenarioJson,
          name,
          options.maxRegistered,
          channel,
          `${options.replicaId}|${JSON.stringify(change)}`,
          maxRegisteredBytes,
        ],
      });
      return Number(epoch);
    },
    subscribe(given) {
      listeners = given;
    },
    async countFault(key) {
      // A counter per scenario change: it starts again with the next change, and expires a day on.
      return Number(await options.connection.run(countScript, { keys: [`${tag}:fault:${key}`], args: [24 * 60 * 60 * 1000] }));
    },
    async start() {
      await options.subscriber.subscribe(channel, hear);
    },
    resync,
    requestResync: resync,
    close() {
      closed = true;
      if (retry) clearTimeout(retry);
    },
  };
}
