/**
 * @module engine/builtin-scenarios
 * The scenarios shipped in scenarios/, bundled into the engine so they work where there is no
 * file system (MSW in a browser). Each is read the first time an engine asks for it, with the
 * schema's defaults filled in but not through zod (`shippedScenario`; the tests parse every file
 * through the schema): an engine starts under one of them, and validating them cost a test
 * file's first answer more than the rest of the engine's set-up (docs/performance.md, "Import
 * cost").
 */
import byOperationId from '../../scenarios/by-operation-id.json' with { type: 'json' };
import defaultScenario from '../../scenarios/default.json' with { type: 'json' };
import error400 from '../../scenarios/error-400.json' with { type: 'json' };
import error404 from '../../scenarios/error-404.json' with { type: 'json' };
import error409 from '../../scenarios/error-409.json' with { type: 'json' };
import error413 from '../../scenarios/error-413.json' with { type: 'json' };
import fail from '../../scenarios/fail.json' with { type: 'json' };
import flaky503 from '../../scenarios/flaky-503.json' with { type: 'json' };
import indeterminate from '../../scenarios/indeterminate.json' with { type: 'json' };
import jobFailed from '../../scenarios/job-failed.json' with { type: 'json' };
import manual from '../../scenarios/manual.json' with { type: 'json' };
import rateLimited from '../../scenarios/rate-limited.json' with { type: 'json' };
import serverError from '../../scenarios/server-error.json' with { type: 'json' };
import slowPass from '../../scenarios/slow-pass.json' with { type: 'json' };
import { type Scenario, type ScenarioInput, shippedScenario } from './scenario.js';

const documents: Record<string, unknown> = {
  'by-operation-id': byOperationId,
  default: defaultScenario,
  'error-400': error400,
  'error-404': error404,
  'error-409': error409,
  'error-413': error413,
  fail: fail,
  'flaky-503': flaky503,
  indeterminate: indeterminate,
  'job-failed': jobFailed,
  manual: manual,
  'rate-limited': rateLimited,
  'server-error': serverError,
  'slow-pass': slowPass,
};

function readShipped(name: string): Scenario {
  return shippedScenario(documents[name] as ScenarioInput);
}

/** The shipped scenarios by name, as parseScenario would give them. */
export function builtinScenarios(): Map<string, Scenario> {
  return new Map(Object.keys(documents).map((name) => [name, readShipped(name)]));
}

/**
 * The scenarios an engine knows for its life, as a Map of them would be (the shipped ones
 * first, in their order, then those given at creation; a given one of a shipped name takes its
 * place), but a shipped scenario is read only when first asked for, each engine its own copy.
 */
export class StartupScenarios {
  /** undefined: a shipped scenario not read yet. */
  private readonly byName = new Map<string, Scenario | undefined>(Object.keys(documents).map((name) => [name, undefined]));
  readonly shippedNames: ReadonlySet<string> = new Set(Object.keys(documents));

  get(name: string): Scenario | undefined {
    const known = this.byName.get(name);
    if (known !== undefined || !this.byName.has(name)) return known;
    const parsed = readShipped(name);
    this.byName.set(name, parsed);
    return parsed;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  set(name: string, scenario: Scenario): void {
    this.byName.set(name, scenario);
  }

  delete(name: string): void {
    this.byName.delete(name);
  }

  /** Every scenario, reading the shipped ones not read yet (listing them is asking for them). */
  *values(): IterableIterator<Scenario> {
    for (const name of [...this.byName.keys()]) {
      const scenario = this.get(name);
      if (scenario) yield scenario;
    }
  }
}
