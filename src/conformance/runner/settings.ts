/**
 * @module conformance/runner/settings
 * A run's options once read and checked (run.ts resolves them from ConformanceOptions): every
 * default applied, every bound validated once, the spec loaded, the checks selected.
 */
import type { ContractDocument } from '../../openapi/document.js';
import type { ResponseValidator } from '../../openapi/response-validator.js';
import type { Check, ProbeName } from '../checks/check.js';
import type { OperationFilter } from '../operation-filter.js';
import type { PactPlan } from '../pact/pact-run.js';
import type { ConformanceOptions } from '../run.js';
import type { Scrubber } from '../secrets.js';
import type { PreparedWorkflows } from '../workflows/index.js';
import type { RunLimits } from './run-state.js';

export interface RunSettings {
  /** What the caller gave: its hooks, callbacks, cassette, signal, TLS and rate. */
  readonly options: ConformanceOptions;
  readonly contract: ContractDocument;
  readonly validator: ResponseValidator;
  readonly checks: readonly Check[];
  /** The probes the selected checks need: the phases that run. */
  readonly needed: ReadonlySet<ProbeName>;
  readonly filter: OperationFilter;
  /** The Arazzo workflows to run (--workflows), read and prepared. */
  readonly workflows: PreparedWorkflows | undefined;
  /** Whether only the workflows run (--workflows without --checks): a response check with nothing to judge is then left out, not missing. */
  readonly workflowsOnly: boolean;
  readonly seed: number;
  readonly runId: string;
  /** The target, without the user name and password a base URL may hold. */
  readonly baseUrl: string;
  /** Whether the base URL held a user name and password (sent as Authorization: Basic). */
  readonly basicAuth: boolean;
  /** Each caller's headers (credentials). */
  readonly callers: Readonly<Record<1 | 2, Readonly<Record<string, string>>>>;
  /** Takes every credential given to the run out of what it reports. */
  readonly scrubber: Scrubber;
  readonly limits: RunLimits;
  readonly jobTimeoutMs: number;
  readonly maxResponseBytes: number;
  readonly maxExamples: number;
  readonly concurrency: number;
  /** How long after its job is final a key is replayed again (--replay-wait), in ms; 0: not. */
  readonly replayWaitMs: number;
  readonly maxResponseTimeMs: number | undefined;
  /** The pact a --pact run verifies, read and compiled; absent in a run of the default probes. */
  readonly pact?: PactPlan;
  /** When the run started (ms since the epoch). */
  readonly started: number;
}
