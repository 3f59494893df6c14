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

export class ReplicaSync {
  /** Shares not yet confirmed, each settled to its failure or to nothing (never an unhandled rejection). */
  private unconfirmed: Array<Promise<unknown>> = [];

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
      change: (change) => scenarios.applyShared(change, { onReset: resetLocal }),
      resync: (state) => scenarios.adoptShared(state, { atStart: false }),
    });
    this.track(
      link.load().then(
        (state) => scenarios.adoptShared(state, { atStart: true }),
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

  /** Resolves once every change so far is visible to every replica; rejects with the first failure. */
  async synced(): Promise<void> {
    const waiting = this.unconfirmed;
    this.unconfirmed = [];
    const failures = (await Promise.all(waiting)).filter((outcome) => outcome !== undefined);
    if (failures.length > 0) throw failures[0];
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
