/**
 * @module engine/builtin-scenarios
 * The scenarios shipped in scenarios/, bundled into the engine so they work where there is no
 * file system (MSW in a browser). Each is validated when the engine starts.
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
import { parseScenario, type Scenario } from './scenario.js';

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

/** The shipped scenarios by name, validated. */
export function builtinScenarios(): Map<string, Scenario> {
  return new Map(Object.entries(documents).map(([name, value]) => [name, parseScenario({ value, source: `scenarios/${name}.json` })]));
}
