/**
 * @module conformance/http/burst-gate
 * Requests sent together, so that they complete at the server within a fraction of a
 * millisecond of each other: each request of a burst is written whole but for its last byte,
 * and once every one of them is on its connection (or has failed), the last bytes are released
 * at once (last-byte synchronisation). A server acts on a request when its body is complete, so
 * it sees N requests completing together, however long their connections took to open. Started
 * together without this, a burst of 5 arrived about 5 ms wide (connections opening, bodies
 * written one after another), and a race window of a millisecond was found in one run of two.
 *
 * ProbeContext.send takes no transport options, so the gate travels with a burst's sends in an
 * AsyncLocalStorage scope (`sendTogether`), and the runner's node client asks for it
 * (`burstParticipantHere`, bounded-client.ts). Only a request's first attempt is held back: a
 * 429 retry or a redirect goes as usual. An injected Fetch function (an in-process engine) gets
 * the burst's requests in one turn of the event loop instead; nothing is held back there.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** How long the gate waits, once every request is on its connection, before releasing them: the server reads what came. */
export const burstSettleMs = 5;
/** The gate opens anyway after this long without a request arriving at it or leaving (a connection that does not open). */
export const burstIdleMs = 1000;

/** One request of a burst, as the transport sees it. */
export interface BurstParticipant {
  /** Whether this request's body may still be held back (its first attempt only). */
  claim(): boolean;
  /** Every byte but the last is written: resolves when the gate opens. */
  arrive(): Promise<void>;
  /** The last byte went to the socket. */
  sent(): void;
  /** The request will not arrive (not sent, failed before its bytes were written, or already done). */
  leave(): void;
}

class BurstGate {
  private waiting: number;
  private opened = false;
  private readonly opening: Promise<void>;
  private open!: () => void;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly sentAt: number[] = [];
  /** Requests held back at the gate when it opened. */
  heldBack = 0;

  constructor(size: number) {
    this.waiting = size;
    this.opening = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  participant(): BurstParticipant {
    let claimed = false;
    let state: 'out' | 'arrived' | 'left' = 'out';
    return {
      claim: () => {
        if (claimed || this.opened) return false;
        claimed = true;
        return true;
      },
      arrive: () => {
        if (state === 'out') {
          state = 'arrived';
          this.heldBack += 1;
          this.settle();
        }
        return this.opening;
      },
      sent: () => {
        this.sentAt.push(performance.now());
      },
      leave: () => {
        if (state !== 'out') return;
        state = 'left';
        this.settle();
      },
    };
  }

  /** The time between the first and the last of the released bytes, when two or more went out. */
  get spreadMs(): number | undefined {
    if (this.sentAt.length < 2) return undefined;
    return Math.max(...this.sentAt) - Math.min(...this.sentAt);
  }

  private settle(): void {
    this.waiting -= 1;
    clearTimeout(this.idleTimer);
    if (this.opened) return;
    if (this.waiting <= 0) {
      setTimeout(() => this.release(), burstSettleMs);
      return;
    }
    this.idleTimer = setTimeout(() => this.release(), burstIdleMs);
  }

  private release(): void {
    clearTimeout(this.idleTimer);
    this.opened = true;
    this.open();
  }
}

const scope = new AsyncLocalStorage<BurstParticipant>();

/** The burst the current send belongs to, if any (asked by the transport). */
export function burstParticipantHere(): BurstParticipant | undefined {
  return scope.getStore();
}

/**
 * The body as an async iterable that holds back its last byte until the burst's gate opens.
 * Node's client (undici) asks for the next chunk once it has written the one before, which is
 * when this request counts as arrived.
 */
export async function* heldBackBody(body: Uint8Array, participant: BurstParticipant): AsyncGenerator<Uint8Array> {
  let arrived = false;
  try {
    yield body.subarray(0, body.length - 1);
    arrived = true;
    await participant.arrive();
    yield body.subarray(body.length - 1);
    participant.sent();
  } finally {
    if (!arrived) participant.leave();
  }
}

export interface BurstResult<T> {
  /** Each send's result, in the order the sends were made. */
  readonly results: T[];
  /** How many requests were held back and released together (0 through an injected Fetch function). */
  readonly heldBack: number;
  /** The time between the first and last last byte released, in ms (undefined when fewer than two were). */
  readonly spreadMs?: number;
}

/** Makes `count` sends at once, as one burst: over HTTP, their last bytes are released together. */
export async function sendTogether<T>(count: number, send: (index: number) => Promise<T>): Promise<BurstResult<T>> {
  const gate = new BurstGate(count);
  const results = await Promise.all(
    Array.from({ length: count }, (_, index) => {
      const participant = gate.participant();
      return scope.run(participant, async () => {
        try {
          return await send(index);
        } finally {
          // A send refused before the transport (--max-requests), or one that failed before its
          // bytes were written, must not keep the others waiting.
          participant.leave();
        }
      });
    }),
  );
  return { results, heldBack: gate.heldBack, ...(gate.spreadMs === undefined ? {} : { spreadMs: gate.spreadMs }) };
}
