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
 *
 * Anyone who can reach the Redis can publish on the channel: every announcement is checked
 * (`readAnnouncement`) before the engine sees it, and one that is not of this shape is logged
 * (cut short) and ignored. An announcement numbered past the next epoch means changes were
 * missed (or the number is not one the store gave): the shared state is read again instead, so
 * no number the store never gave becomes this replica's epoch, and later changes still apply.
 */
import { randomBytes } from 'node:crypto';
import {
  type DeliveredChange,
  type ReplicaChange,
  type ReplicaLink,
  type ScenarioInput,
  type SharedScenarioState,
  truncate,
} from '../../engine/index.js';
import { type RedisConnection, redisScript } from './redis-connection.js';

/** A replica's name in its announcements: 9 random bytes in base64url. */
const replicaIdPattern = /^[A-Za-z0-9_-]{12}$/;

/** A new replica name, of the shape announcements are checked against. */
export function newReplicaId(): string {
  return randomBytes(9).toString('base64url');
}

/**
 * KEYS: epoch, in force, registered. ARGV: kind, scenario JSON or '', name or '', max
 * registered, channel, message, max registered bytes, time to live ms (0: none). The list is trimmed by count, then by
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
-- A session's scenario keys expire with the session (A-60); the default's are kept (ARGV[8] 0).
if tonumber(ARGV[8]) > 0 then
  for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[8]) end
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
  /** Told of announcements ignored (bounded lines, the message cut short). */
  readonly log?: (line: string) => void;
  /**
   * A session's link: its scenario keys expire this long after the last change, unless
   * `touch` renews them sooner. Default: they never expire (the default session's).
   */
  readonly keepMs?: number;
}

export interface RedisLink extends ReplicaLink {
  /** Subscribes to the channel; called once, before the engine asks for anything. */
  start(): Promise<void>;
  /** For the subscriber connection's `ready` after a loss: read the state again. */
  resync(): void;
  /** The keys of the shared scenario state (a session's expire with it: shared-state.ts). */
  readonly stateKeys: readonly string[];
  /** Stops a resync that is still trying; with `unsubscribe`, stops listening on the channel too. */
  close(options?: { unsubscribe?: boolean }): void;
}

export function createRedisLink(options: RedisLinkOptions): RedisLink {
  if (!replicaIdPattern.test(options.replicaId)) throw new TypeError('createRedisLink: replicaId must be one newReplicaId() gave');
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
  /** The newest epoch known to be the store's: from its state, or heard in order since. */
  let heard = 0;
  /** A resync is reading the state; `again`: another was asked for meanwhile, and reads after it. */
  let resyncing = false;
  let again = false;
  let ignored = 0;

  /** Reads the shared state and hands it over; while the store does not answer, tries again every 500 ms. */
  function resync(): void {
    if (closed || retry) return;
    if (resyncing) {
      again = true;
      return;
    }
    resyncing = true;
    readState().then(
      (state) => {
        resyncing = false;
        // After a loss the store's word is taken whatever its number (a restarted Redis starts again).
        heard = state?.epoch ?? 0;
        listeners?.resync(state);
        if (again) {
          again = false;
          resync();
        }
      },
      () => {
        resyncing = false;
        again = false;
        retry = setTimeout(() => {
          retry = undefined;
          resync();
        }, 500);
        retry.unref?.();
      },
    );
  }

  async function load(): Promise<SharedScenarioState | undefined> {
    const state = await readState();
    heard = Math.max(heard, state?.epoch ?? 0);
    return state;
  }

  async function readState(): Promise<SharedScenarioState | undefined> {
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
    const announcement = readAnnouncement(message);
    if ('problem' in announcement) {
      ignored += 1;
      // Bounded: the first ten, then the 100th, the 1000th…; each line quotes 40 characters at
      // most, JSON-escaped (no control character reaches the log).
      if (ignored <= 10 || /^10+$/.test(String(ignored))) {
        const count = ignored > 10 ? `; ${ignored} ignored so far` : '';
        options.log?.(
          `shared store: ignored an announcement on ${channel} (${announcement.problem}): ${JSON.stringify(truncate(message, 40))}${count}`,
        );
      }
      return;
    }
    if (resyncing) {
      // The state being read may have been read before this change was made (the read and the
      // channel are two connections): applied now, it would be undone by that older state.
      // Read again instead; the store changes its state before it announces, so that read has it.
      again = true;
      return;
    }
    if (announcement.epoch > heard + 1) {
      // Changes were missed, or the number is not one the store gave: its state says which.
      resync();
      return;
    }
    heard = Math.max(heard, announcement.epoch);
    listeners?.change({ ...announcement.change, epoch: announcement.epoch } as DeliveredChange);
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
          options.keepMs ?? 0,
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
    stateKeys: keys,
    requestResync: resync,
    close(closeOptions) {
      closed = true;
      if (retry) clearTimeout(retry);
      if (closeOptions?.unsubscribe) options.subscriber.unsubscribe(channel).catch(() => undefined);
    },
  };
}

const changeKinds = new Set(['use', 'register', 'reset']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An announcement, `<epoch>|<replica>|<change JSON>`, as the change it carries, or what is wrong
 * with it: the epoch digits only and a safe integer (INCR's, from 1), the replica a name
 * `newReplicaId` gives, the change JSON of a known kind whose scenario is a name or an object
 * (the engine checks the scenario itself, as it does any scenario). Only the change's own fields
 * are kept.
 */
export function readAnnouncement(
  message: string,
): { readonly epoch: number; readonly change: ReplicaChange } | { readonly problem: string } {
  const first = message.indexOf('|');
  const second = first < 0 ? -1 : message.indexOf('|', first + 1);
  if (second < 0) return { problem: "not '<epoch>|<replica>|<change>'" };
  const epochText = message.slice(0, first);
  const epoch = Number(epochText);
  if (!(/^[1-9][0-9]{0,15}$/.test(epochText) && Number.isSafeInteger(epoch)))
    return { problem: 'the epoch is not a whole number from 1 to 2^53 - 1' };
  if (!replicaIdPattern.test(message.slice(first + 1, second))) return { problem: 'the replica is not a replica name' };
  let change: unknown;
  try {
    change = JSON.parse(message.slice(second + 1));
  } catch {
    return { problem: 'the change is not JSON' };
  }
  if (!isPlainObject(change) || typeof change.kind !== 'string' || !changeKinds.has(change.kind)) {
    return { problem: 'the change is not an object of kind use, register or reset' };
  }
  const scenario = change.scenario;
  if (change.kind === 'reset') return { epoch, change: { kind: 'reset' } };
  if (change.kind === 'register') {
    return isPlainObject(scenario)
      ? { epoch, change: { kind: 'register', scenario: scenario as ScenarioInput } }
      : { problem: 'a register change without a scenario object' };
  }
  if (typeof scenario === 'string' && scenario.length >= 1 && scenario.length <= 64) return { epoch, change: { kind: 'use', scenario } };
  if (isPlainObject(scenario)) return { epoch, change: { kind: 'use', scenario: scenario as ScenarioInput } };
  return { problem: 'a use change without a scenario name or object' };
}
