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

/**
 * A session a control call may make: made, but not yet among the book's sessions. The
 * call commits it once it has acted, or discards it when refused, so a refused call neither
 * makes a session nor evicts one.
 */
export interface SessionOpening {
  readonly session: MockSession;
  commit(): void;
  discard(): void;
}

interface Pending {
  readonly session: MockSession;
  /** Control calls acting on it now; the last one to discard it closes it. */
  users: number;
}

interface Held {
  readonly session: MockSession;
  readonly createdAt: number;
  /** Made n-th: the order reports list sessions in (clock times may tie). */
  readonly made: number;
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
  /** Told of each named session as it ends (evicted, expired or closed), before it is closed. */
  readonly onEnd?: ((session: MockSession, reason: 'evicted' | 'expired' | 'closed') => void) | undefined;
  /** Told of each use of a named session (a call answered in it, or a control call), after it is resolved. */
  readonly onUse?: ((session: MockSession, held: { readonly createdAt: number; readonly lastUsedAt: number }) => void) | undefined;
}

export class SessionBook {
  /** In order of last use, least recent first: eviction and expiry look only at the head. */
  private readonly named = new Map<string, Held>();
  /** Sessions control calls are acting on before committing them (`open`). */
  private readonly pending = new Map<string, Pending>();
  private readonly startedAt: number;
  private made = 0;

  constructor(private readonly options: SessionBookOptions) {
    this.startedAt = options.clock.now();
  }

  /** The session named `name`, made if new. Throws ControlError for a name it refuses. */
  resolve(name: string): MockSession {
    if (name === defaultSessionName) return this.options.defaultSession;
    const now = this.options.clock.now();
    this.expire(now);
    const held = this.use(name, now);
    if (held) return held;
    checkSessionName(name);
    // A control call is acting on this session before committing it: a call answered in it commits it now.
    const pending = this.pending.get(name);
    const session = pending?.session ?? this.options.create(name);
    this.pending.delete(name);
    this.insert(name, session, now);
    return session;
  }

  /** The live session named `name` (the default one for 'default'), or undefined: never makes one, nor counts as a use. */
  find(name: string): MockSession | undefined {
    if (name === defaultSessionName) return this.options.defaultSession;
    this.expire(this.options.clock.now());
    return this.named.get(name)?.session;
  }

  /**
   * The session named `name` for a control call: a live one as `resolve` gives it, or a new one
   * kept apart until the call commits it (after acting) or discards it (refused). Throws
   * ControlError for a name it refuses.
   */
  open(name: string): SessionOpening {
    if (name === defaultSessionName) return { session: this.options.defaultSession, commit: () => undefined, discard: () => undefined };
    const now = this.options.clock.now();
    this.expire(now);
    const held = this.named.get(name)?.session;
    // A live session counts the call as a use only once it has acted: a refused call leaves its place and time to live as they were.
    if (held) return { session: held, commit: () => void this.use(name, this.options.clock.now()), discard: () => undefined };
    checkSessionName(name);
    let pending = this.pending.get(name);
    if (!pending) {
      pending = { session: this.options.create(name), users: 0 };
      this.pending.set(name, pending);
    }
    pending.users += 1;
    const entry = pending;
    let settled = false;
    return {
      session: entry.session,
      commit: () => {
        if (settled) return;
        settled = true;
        entry.users -= 1;
        if (this.pending.get(name) !== entry) return;
        this.pending.delete(name);
        this.insert(name, entry.session, this.options.clock.now());
      },
      discard: () => {
        if (settled) return;
        settled = true;
        entry.users -= 1;
        if (this.pending.get(name) !== entry || entry.users > 0) return;
        this.pending.delete(name);
        entry.session.close();
      },
    };
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
    for (const held of this.named.values()) {
      this.options.onEnd?.(held.session, 'closed');
      held.session.close();
    }
    this.named.clear();
    for (const pending of this.pending.values()) pending.session.close();
    this.pending.clear();
  }

  /** The named sessions live now, in the order they were made (a report's order should not change as they are used). */
  live(): readonly MockSession[] {
    return [...this.named.values()].sort((left, right) => left.made - right.made).map((held) => held.session);
  }

  /** A live named session, moved to the end (the map stays in order of last use); undefined if none. */
  private use(name: string, now: number): MockSession | undefined {
    const held = this.named.get(name);
    if (!held) return undefined;
    this.named.delete(name);
    held.lastUsedAt = now;
    this.named.set(name, held);
    this.options.onUse?.(held.session, held);
    return held.session;
  }

  private insert(name: string, session: MockSession, now: number): void {
    while (this.named.size >= this.options.maxSessions) this.evictOldest('the session limit was reached');
    this.made += 1;
    const held = { session, createdAt: now, lastUsedAt: now, made: this.made };
    this.named.set(name, held);
    this.options.onUse?.(session, held);
  }

  private expire(now: number): void {
    for (const [name, held] of this.named) {
      if (now - held.lastUsedAt < this.options.idleMs) return;
      this.drop(name, held, `idle for ${Math.round((now - held.lastUsedAt) / 1000)} s`, 'expired');
    }
  }

  private evictOldest(reason: string): void {
    const oldest = this.named.entries().next();
    if (oldest.done) return;
    const [name, held] = oldest.value;
    this.drop(name, held, `${reason} (${this.options.maxSessions})`, 'evicted');
  }

  private drop(name: string, held: Held, reason: string, end: 'evicted' | 'expired'): void {
    this.named.delete(name);
    // Its coverage and pact are kept for the reports written at exit before it goes.
    this.options.onEnd?.(held.session, end);
    held.session.close();
    this.options.log?.(`session ${quote(name, 70)} forgotten: ${reason}; ${held.session.calls} calls answered in it`);
  }
}
