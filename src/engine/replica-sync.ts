/**
 * @module engine/replica-sync
 * Keeps an engine's scenario in force in step with the other replicas sharing its store
 * (docs/assumptions.md A-25): shares each change this replica makes, applies those the others
 * make, adopts the shared state at start and after a lost link, and tells the control surface
 * whether everything changed so far got through. Without a link every method is a no-op and
 * `synced` resolves at once.
 */
import type { ReplicaChange, ReplicaLink } from './replica-link.js';
import type { ScenarioInForce } from './scenario-in-force.js';

/** How many unconfirmed shares are kept apart before they are folded into one. */
const maxUnconfirmed = 64;

/**
 * How long `synced` waits to hear its own last change back. The channel delivers in well under
 * 100 ms; past this the subscriber is taken as lost, and the shared state is read again instead.
 */
const hearBackMs = 2_000;

export class ReplicaSync {
  /** Shares not yet confirmed, each settled to its failure or to nothing (never an unhandled rejection). */
  private unconfirmed: Array<Promise<unknown>> = [];
  /** The newest epoch applied here in the store's order: heard on the channel, or adopted whole. */
  private applied = 0;
  /** The newest epoch the store gave a change of this replica's. */
  private shared = 0;
  /** `synced` calls waiting to hear `epoch` back; all are let go by a resync. */
  private listening: Array<{ readonly epoch: number; readonly done: () => void }> = [];

  constructor(
    private readonly options: {
      readonly link: ReplicaLink | undefined;
      readonly scenarios: ScenarioInForce;
      /** Forgets what a reset forgets but the stores, which the replica that reset has cleared. */
      readonly resetLocal: () => void;
    },
  ) {
    const { link, scenarios, resetLocal } = options;
    if (!link) return;
    link.subscribe({
      change: (change) => {
        scenarios.applyShared(change, { onReset: resetLocal });
        this.heard(change.epoch);
      },
      resync: (state) => {
        scenarios.adoptShared(state, { atStart: false });
        // The store's word, read after every share so far: nothing older is still to come. Its
        // number may be lower than those shared before (a restarted Redis counts again).
        this.applied = state?.epoch ?? 0;
        this.shared = this.applied;
        for (const waiter of this.listening) waiter.done();
        this.listening = [];
      },
    });
    this.track(
      link.load().then(
        (state) => {
          scenarios.adoptShared(state, { atStart: true });
          this.applied = Math.max(this.applied, state?.epoch ?? 0);
        },
        (error: unknown) => error,
      ),
    );
  }

  /** Shares a change with the other replicas; `synced()` reports whether it got through. */
  share(change: ReplicaChange): void {
    const { link, scenarios } = this.options;
    if (!link) return;
    this.track(
      link.publish(change).then(
        (epoch) => {
          // The channel may have delivered later changes already: never go back to an older number.
          scenarios.confirmEpoch(epoch);
          this.shared = Math.max(this.shared, epoch);
          return undefined;
        },
        (error: unknown) => {
          // The change is in force here but nowhere else: take the shared state back once the store answers.
          link.requestResync();
          return error;
        },
      ),
    );
  }

  /**
   * Resolves once every change so far is visible to every replica, and this one has applied
   * them in the store's order; rejects with the first failure. Until its own changes come back
   * on the channel, a replica may still hear older ones (another replica's, or its own echo)
   * that change its view for a moment: a register heard after a reset made here, say.
   */
  async synced(): Promise<void> {
    const waiting = this.unconfirmed;
    this.unconfirmed = [];
    const failures = (await Promise.all(waiting)).filter((outcome) => outcome !== undefined);
    if (failures.length > 0) throw failures[0];
    await this.hearBack(this.shared);
  }

  private hearBack(epoch: number): Promise<void> {
    const { link } = this.options;
    if (!link || this.applied >= epoch) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.listening = this.listening.filter((waiter) => waiter !== entry);
        link.requestResync();
        resolve();
      }, hearBackMs);
      (timer as { unref?: () => void }).unref?.();
      const entry = {
        epoch,
        done: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.listening.push(entry);
    });
  }

  private heard(epoch: number): void {
    this.applied = Math.max(this.applied, epoch);
    if (this.listening.length === 0) return;
    const still = this.listening.filter((waiter) => waiter.epoch > this.applied);
    for (const waiter of this.listening) if (waiter.epoch <= this.applied) waiter.done();
    this.listening = still;
  }

  private track(settled: Promise<unknown>): void {
    this.unconfirmed.push(settled);
    // A program that changes scenarios in a loop and never asks synced() keeps one entry, not thousands.
    if (this.unconfirmed.length > maxUnconfirmed) {
      const waiting = this.unconfirmed;
      this.unconfirmed = [Promise.all(waiting).then((outcomes) => outcomes.find((outcome) => outcome !== undefined))];
    }
  }
}
