/**
 * @module engine/replica-link
 * What engines sharing one networked store tell each other (docs/assumptions.md A-25): the
 * scenario in force, the scenarios registered at run time, resets, and how often a scenario's
 * counted faults have fired. Jobs and idempotency keys need nothing here: they live in the
 * shared KeyValueStore already. The engine speaks only this interface; a Node-only
 * implementation (src/server/redis) carries it over Redis, so the engine imports no client.
 */
import type { ScenarioInput } from './scenario.js';

/** A change one replica made, which every replica applies. */
export type ReplicaChange =
  /** A scenario put in force: a registered scenario's name, or a new scenario (registered as well). */
  | { readonly kind: 'use'; readonly scenario: string | ScenarioInput }
  | { readonly kind: 'register'; readonly scenario: ScenarioInput }
  /** Each replica restores its own starting scenario and forgets run-time scenarios. */
  | { readonly kind: 'reset' };

/** A change as delivered: numbered, so counted faults start again on every change. */
export type DeliveredChange = ReplicaChange & { readonly epoch: number };

/** The shared state a replica adopts when it starts, and again after a lost connection. */
export interface SharedScenarioState {
  readonly epoch: number;
  /** The scenario in force, or undefined for each replica's starting scenario. */
  readonly inForce?: string;
  /** Scenarios registered at run time, oldest first. */
  readonly registered: readonly ScenarioInput[];
}

export interface ReplicaLink {
  /** The shared state now (undefined when none was ever shared). */
  load(): Promise<SharedScenarioState | undefined>;
  /**
   * Shares a change made on this replica; resolves with its epoch once every replica can read
   * it. Rejects (StoreUnavailableError) when the store cannot be reached.
   */
  publish(change: ReplicaChange): Promise<number>;
  /**
   * Calls `change` for every change shared, this replica's own included, in the order the store
   * numbered them (so every replica ends in the same state, whichever change it made first), and
   * `resync` with the whole shared state after the link was lost and found again (changes may
   * have been missed while it was down), or when asked by `requestResync`.
   */
  subscribe(listeners: { change: (change: DeliveredChange) => void; resync: (state: SharedScenarioState | undefined) => void }): void;
  /**
   * This replica's view may differ from the shared one (a change it made could not be shared):
   * read the shared state again, as soon as the store answers.
   */
  requestResync(): void;
  /** Counts one more firing of the counted fault named `key`; resolves with the new count. */
  countFault(key: string): Promise<number>;
}
