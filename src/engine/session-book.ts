/**
 * @module engine/session-book
 * The sessions of one engine (docs/assumptions.md A-60): the default session, and the named
 * ones that calls carrying `X-Mock-Session` make on first use. Named sessions are bounded in
 * number (the least recently used is evicted, with a log line), in bytes (each gets a fixed
 * share of stores, journal and scenario registry: session-limits in engine.ts) and in idle
 * time (a session unused for `idleMs` of the engine's clock is forgotten at the next lookup).
 */
import type { Clock } from './clock.js';
import { ControlError } from './control-error.js';
import type { SessionSummary } from './control-surface.js';
import { quote } from './responses.js';
import type { MockSession } from './session.js';

/** The header that names a call's session. */
export const sessionHeader = 'x-mock-session';

/** The name of the session of calls without the header. */
export const defaultSessionName = 'default';

const sessionNamePattern = /^[A-Za-z0-9._~-]{1,64}$/;

/**
 * `name` if a session may be called so; ControlError otherwise. The header is the caller's
 * text: a bounded charset keeps it safe in a log line, a Redis key and a URL alike.
 */
export function checkSessionName(name: string): string {
  if (!sessionNamePattern.test(name)) {
    throw new ControlError(
      `X-Mock-Session must be 1 to 64 letters, digits, '.', '_', '-' or '~'; got ${quote(name, 70)} (${name.length} characters)`,
      'invalid',
    );
  }
  return name;
}

interface Held {
  readonly session: MockSession;
  readonly createdAt: number;
  lastUsedAt: number;
}

export interface SessionBookOptions {
  readonly defaultSession: MockSession;
  readonly create: (name: string) => MockSession;
  readonly clock: Clock;
  /** Named sessions kept at once (the default one is not counted). */
  readonly maxSessions: number;
  /** A named session unused this long (engine-clock ms) is forgotten. */
  readonly idleMs: number;
  /** Told of each session evicted or expired, one line each. */
  readonly log?: ((line: string) => void) | undefined;
}

export class SessionBook {
  /** In order of last use, least recent first: eviction and expiry look only at the head. */
  private readonly named = new Map<string, Held>();
  private readonly startedAt: number;

  constructor(private readonly options: SessionBookOptions) {
    this.startedAt = options.clock.now();
  }

  /** The session named `name`, made if new. Throws ControlError for a name it refuses. */
  resolve(name: string): MockSession {
    if (name === defaultSessionName) return this.options.defaultSession;
    const now = this.options.clock.now();
    this.expire(now);
    const held = this.named.get(name);
    if (held) {
      // Moved to the end: the map stays in order of last use.
      this.named.delete(name);
      held.lastUsedAt = now;
      this.named.set(name, held);
      return held.session;
    }
    checkSessionName(name);
    while (this.named.size >= this.options.maxSessions) this.evictOldest('the session limit was reached');
    const session = this.options.create(name);
    this.named.set(name, { session, createdAt: now, lastUsedAt: now });
    return session;
  }

  list(): readonly SessionSummary[] {
    this.expire(this.options.clock.now());
    const summary = (session: MockSession, createdAt: number, lastUsedAt: number): SessionSummary => ({
      name: session.name || defaultSessionName,
      scenario: session.control.scenario,
      calls: session.calls,
      createdAt,
      lastUsedAt,
    });
    const named = [...this.named.values()].reverse().map((held) => summary(held.session, held.createdAt, held.lastUsedAt));
    return [summary(this.options.defaultSession, this.startedAt, this.options.clock.now()), ...named];
  }

  /** Forgets every named session (the engine is closing). */
  closeAll(): void {
    for (const held of this.named.values()) held.session.close();
    this.named.clear();
  }

  private expire(now: number): void {
    for (const [name, held] of this.named) {
      if (now - held.lastUsedAt < this.options.idleMs) return;
      this.drop(name, held, `idle for ${Math.round((now - held.lastUsedAt) / 1000)} s`);
    }
  }

  private evictOldest(reason: string): void {
    const oldest = this.named.entries().next();
    if (oldest.done) return;
    const [name, held] = oldest.value;
    this.drop(name, held, `${reason} (${this.options.maxSessions})`);
  }

  private drop(name: string, held: Held, reason: string): void {
    this.named.delete(name);
    held.session.close();
    this.options.log?.(`session ${quote(name, 70)} forgotten: ${reason}; ${held.session.calls} calls answered in it`);
  }
}
