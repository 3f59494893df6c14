/**
 * @module engine/scenario-registry
 * The scenarios an engine knows by name: the shipped ones and those given when it was created
 * (kept for its life), and those registered at run time through the control surface, which are
 * bounded in number and bytes, the oldest dropped first, and forgotten on reset
 * (docs/assumptions.md A-18).
 */
import type { Scenario } from './scenario.js';

export interface ScenarioRegistryOptions {
  /** The shipped scenarios and those given at creation; never dropped. */
  readonly startup: Pick<ReadonlyMap<string, Scenario>, 'get' | 'has' | 'values'>;
  /** Bytes (JSON text as UTF-16) that scenarios registered at run time may hold together. */
  readonly maxBytes: number;
  /** How many scenarios may be registered at run time. */
  readonly maxCount: number;
}

/** How many names an error message lists before it says how many more there are. */
const namesShown = 20;

export class ScenarioRegistry {
  private readonly runtime = new Map<string, { readonly scenario: Scenario; readonly bytes: number }>();
  private runtimeBytes = 0;

  constructor(private readonly options: ScenarioRegistryOptions) {}

  get(name: string): Scenario | undefined {
    return this.runtime.get(name)?.scenario ?? this.options.startup.get(name);
  }

  has(name: string): boolean {
    return this.runtime.has(name) || this.options.startup.has(name);
  }

  /** Every scenario, startup ones first; a run-time one shadows a startup one of its name. */
  all(): Scenario[] {
    const shadowed = [...this.options.startup.values()].filter((scenario) => !this.runtime.has(scenario.name));
    return [...shadowed, ...[...this.runtime.values()].map((entry) => entry.scenario)];
  }

  /**
   * Registers a scenario at run time, dropping the oldest run-time ones (never `keep`, the one
   * in force) until it fits. One larger than the whole budget is refused with a RangeError.
   */
  register(scenario: Scenario, options: { keep: string }): void {
    const bytes = JSON.stringify(scenario).length * 2;
    if (bytes > this.options.maxBytes) {
      throw new RangeError(
        `scenario '${scenario.name}' takes about ${bytes} bytes; scenarios registered at run time may hold ${this.options.maxBytes} bytes in all`,
      );
    }
    this.drop(scenario.name);
    for (const [name] of this.runtime) {
      if (this.runtimeBytes + bytes <= this.options.maxBytes && this.runtime.size < this.options.maxCount) break;
      if (name !== options.keep) this.drop(name);
    }
    this.runtime.set(scenario.name, { scenario, bytes });
    this.runtimeBytes += bytes;
  }

  private drop(name: string): void {
    const entry = this.runtime.get(name);
    if (!entry) return;
    this.runtimeBytes -= entry.bytes;
    this.runtime.delete(name);
  }

  /** Forgets every scenario registered at run time. */
  reset(): void {
    this.runtime.clear();
    this.runtimeBytes = 0;
  }

  /** "a, b, c" — or the first names and how many more, so a message never lists thousands. */
  describeNames(): string {
    const names = this.all().map((scenario) => scenario.name);
    if (names.length <= namesShown) return names.join(', ');
    return `${names.slice(0, namesShown).join(', ')} and ${names.length - namesShown} more (GET /__mock/scenarios lists them)`;
  }

  /** Estimated bytes of the scenarios registered at run time. */
  get byteSize(): number {
    return this.runtimeBytes;
  }
}
