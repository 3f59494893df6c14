/**
 * @module engine/scenario-in-force
 * The scenario an engine answers under, and what hangs on it: the scenarios it knows by name,
 * the starting one that reset restores, the seeded draw, the epoch that numbers scenario
 * changes among replicas, and the counted faults. Counted faults start again whenever the
 * scenario in force, the epoch or the draw changes; `settle` is the one place that happens, so
 * no path can change one and forget the others.
 */
import { StartupScenarios } from './builtin-scenarios.js';
import { ControlError } from './control-error.js';
import type { EngineContract } from './engine-contract.js';
import { FaultInjector } from './faults.js';
import { createRandom, type Random } from './random.js';
import type { DeliveredChange, SharedScenarioState } from './replica-link.js';
import { quote } from './responses.js';
import { parseScenario, type Scenario, ScenarioError, type ScenarioInput } from './scenario.js';
import { ScenarioRegistry } from './scenario-registry.js';

export interface ScenarioInForceOptions {
  readonly contract: EngineContract;
  /** The scenario in force at start: a known name or a scenario object. Default 'default'. */
  readonly scenario?: string | ScenarioInput | undefined;
  /** Scenarios known by name for the engine's life, beside the shipped ones. */
  readonly scenarios?: readonly ScenarioInput[] | undefined;
  readonly seed?: number | undefined;
  /** Bytes and count of the scenarios registered at run time. */
  readonly maxRegistryBytes: number;
  readonly maxRegistered: number;
  /** Counts a counted fault's firings across replicas; absent, each engine counts its own. */
  readonly faultCounter?: ((key: string) => Promise<number>) | undefined;
}

/** A scenario whose timelines reach only states the served contract has (a document may add some, A-28). */
function withStatesOf(options: { scenario: Scenario; contract: EngineContract; source: string }): Scenario {
  const { scenario, contract, source } = options;
  const plans = [
    ...(scenario.job ? [['job', scenario.job] as const] : []),
    ...scenario.rules.map((rule, index) => [`rules.${index}.job`, rule.job] as const),
  ];
  const problems = plans.flatMap(([path, plan]) =>
    plan.timeline.flatMap((step, index) =>
      contract.jobStatuses.includes(step.status)
        ? []
        : [
            {
              path: `${path}.timeline.${index}.status`,
              message: `${quote(step.status, 64)} is not a job state of the contract served (${contract.jobStatuses.join(', ')})`,
            },
          ],
    ),
  );
  if (problems.length > 0) throw new ScenarioError(source, problems);
  return scenario;
}

export class ScenarioInForce {
  /** The shipped scenarios and those given at creation: they live as long as the engine. */
  private readonly startup = new StartupScenarios();
  private readonly registry: ScenarioRegistry;
  private starting: Scenario;
  private inForce: Scenario;
  private drawn: Random;
  private number = 0;
  private injector: FaultInjector;

  constructor(private readonly options: ScenarioInForceOptions) {
    for (const input of options.scenarios ?? []) {
      const scenario = this.parse(input);
      this.startup.set(scenario.name, scenario);
    }
    const given = options.scenario;
    if (given !== undefined && typeof given !== 'string') {
      const scenario = this.parse(given);
      this.startup.set(scenario.name, scenario);
    }
    this.registry = new ScenarioRegistry({ startup: this.startup, maxBytes: options.maxRegistryBytes, maxCount: options.maxRegistered });
    this.starting = this.named(given === undefined ? 'default' : typeof given === 'string' ? given : String(given.name));
    this.inForce = this.starting;
    this.drawn = this.newDraw();
    this.injector = this.newFaults();
  }

  /** The scenario answers are given under, unless a call prefers another. */
  get current(): Scenario {
    return this.inForce;
  }

  /** The seeded draw: job ids (without replicas) and fractional faults. */
  get random(): Random {
    return this.drawn;
  }

  /** The counted and fractional faults of the scenario in force. */
  get faults(): FaultInjector {
    return this.injector;
  }

  get epoch(): number {
    return this.number;
  }

  /** A scenario as given, checked against the contract served. */
  parse(input: ScenarioInput): Scenario {
    const source = `scenario ${quote(String((input as { name?: unknown })?.name ?? '?'), 80)}`;
    return withStatesOf({ scenario: parseScenario({ value: input, source }), contract: this.options.contract, source });
  }

  get(name: string): Scenario | undefined {
    return this.registry.get(name);
  }

  has(name: string): boolean {
    return this.registry.has(name);
  }

  all(): readonly Scenario[] {
    return this.registry.all();
  }

  describeNames(): string {
    return this.registry.describeNames();
  }

  /** A known scenario by name; ControlError (not_found) naming the known ones otherwise. */
  named(name: string): Scenario {
    const found = this.registry.get(name);
    if (!found) throw new ControlError(`unknown scenario ${quote(name, 80)}; known: ${this.registry.describeNames()}`, 'not_found');
    return found;
  }

  /** Registers a scenario at run time; the one in force is never dropped to make room. */
  register(input: ScenarioInput): Scenario {
    const parsed = this.parse(input);
    try {
      this.registry.register(parsed, { keep: this.inForce.name });
    } catch (error) {
      if (error instanceof RangeError) throw new ControlError(error.message, 'invalid');
      throw error;
    }
    return parsed;
  }

  /** Puts a known scenario (by name) or a new one (registered) in force. */
  putInForce(choice: string | ScenarioInput): Scenario {
    this.settle({ inForce: typeof choice === 'string' ? this.named(choice) : this.register(choice) });
    return this.inForce;
  }

  /** Back to the start: run-time scenarios forgotten, the starting scenario, the seed drawn again. */
  reset(): void {
    this.registry.reset();
    this.settle({ inForce: this.starting, drawn: this.newDraw() });
  }

  /**
   * Replaces the starting scenario (a scenario file reloaded); it is put in force unless
   * another was chosen since. Returns it, and whether it is in force.
   */
  reloadStarting(input: ScenarioInput): { scenario: Scenario; inForce: boolean } {
    const parsed = this.parse(input);
    const previous = this.starting;
    if (previous.name !== parsed.name && !this.startup.shippedNames.has(previous.name)) this.startup.delete(previous.name);
    this.startup.set(parsed.name, parsed);
    this.starting = parsed;
    const inForce = this.inForce === previous;
    if (inForce) this.settle({ inForce: parsed });
    return { scenario: parsed, inForce };
  }

  /** A change shared by this replica got the shared number `epoch`: never go back to an older one. */
  confirmEpoch(epoch: number): void {
    if (epoch > this.number) this.settle({ epoch });
  }

  /** Applies a change another replica (or this one, echoed) made. */
  applyShared(change: DeliveredChange, options: { onReset: () => void }): void {
    try {
      if (change.kind === 'reset') options.onReset();
      else if (change.kind === 'register') this.register(change.scenario);
      else if (typeof change.scenario !== 'string' || this.registry.has(change.scenario)) this.putInForce(change.scenario);
    } catch {
      // A change this replica cannot apply leaves its state as it was; the next resync repairs it.
    }
    this.settle({ epoch: Math.max(this.number, change.epoch) });
  }

  /** Adopts the shared state: at start, and after the link was lost (changes may have been missed). */
  adoptShared(state: SharedScenarioState | undefined, options: { atStart: boolean }): void {
    if (!state) {
      // Nothing shared (a new store, or Redis restarted without persistence): the starting scenario.
      if (options.atStart) return;
      this.registry.reset();
      this.settle({ inForce: this.starting, epoch: 0 });
      return;
    }
    // The first read may come back after changes heard since: they are newer. A resync after a
    // lost link takes the store's word whatever its number (a restarted Redis starts again).
    if (options.atStart && state.epoch < this.number) return;
    this.registry.reset();
    for (const input of state.registered) {
      try {
        this.register(input);
      } catch {
        // A scenario this replica cannot take (another version's schema) is left out, not fatal.
      }
    }
    const inForce = (state.inForce === undefined ? undefined : this.registry.get(state.inForce)) ?? this.starting;
    this.settle({ inForce, epoch: state.epoch });
  }

  /** The one place counted faults start again: after any change of scenario, epoch or draw. */
  private settle(change: { inForce?: Scenario; epoch?: number; drawn?: Random }): void {
    if (change.inForce) this.inForce = change.inForce;
    if (change.epoch !== undefined) this.number = change.epoch;
    if (change.drawn) this.drawn = change.drawn;
    this.injector = this.newFaults();
  }

  private newDraw(): Random {
    return createRandom(this.options.seed === undefined ? {} : { seed: this.options.seed });
  }

  private newFaults(): FaultInjector {
    const counter = this.options.faultCounter;
    return new FaultInjector({ random: this.drawn, epoch: this.number, ...(counter ? { counter } : {}) });
  }
}
