/**
 * @module conformance/probes/probe-context
 * What every probe gets from the runner: the spec, the seed, a way to send a request (counted
 * against --max-requests and recorded for judging), and the helpers that make requests
 * reproducible — idempotency keys and seeds derived from the run's seed.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ContractDocument, OperationDescription } from '../../openapi/document.js';
import type { ResponseValidator } from '../../openapi/response-validator.js';
import type { ProbeName } from '../checks/check.js';
import type { Exchange, Intent } from '../exchange.js';

export interface ProbeRequest {
  readonly operation?: OperationDescription;
  readonly method: string;
  /** The path under the base URL, filled and percent-encoded. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** 1 (default): the first caller's credentials; 2: the second caller's. */
  readonly caller?: 1 | 2;
  /** Sent with no caller's credentials at all (ignored_auth). */
  readonly withoutCredentials?: boolean;
}

export interface ProbeContext {
  readonly contract: ContractDocument;
  readonly validator: ResponseValidator;
  readonly seed: number;
  /** The run's id (--run-id, else random): with the seed, it makes the Idempotency-Keys. */
  readonly runId: string;
  readonly jobTimeoutMs: number;
  readonly examplesPerOperation: number;
  /** How many identical creates the stateful phase sends at once (--concurrency). */
  readonly concurrency: number;
  /** How long after a job is final its key is replayed again (--replay-wait, ms; 0: not). */
  readonly replayWaitMs: number;
  readonly hasSecondCaller: boolean;
  /** The first caller's credential header names (--header, a base URL's user name): what ignored_auth leaves out. */
  readonly credentialHeaders: readonly string[];
  /** Per credential header of the first caller, the first word of its value when more follows (its scheme): never the credential. */
  readonly credentialSchemes?: Readonly<Record<string, string>>;
  /** Whether the operation filters (--include-operation, …) let requests go to this operation. */
  includes(operation: Pick<OperationDescription, 'operationId' | 'path' | 'method'>): boolean;
  /** Whether a probe runs in this run (the selected checks need it). */
  runs(probe: ProbeName): boolean;
  /**
   * Sends a request and records the exchange for judging (unless `record: false`). Resolves to
   * undefined, sending nothing, when --max-requests is used up.
   */
  send(request: ProbeRequest, intent: Intent, options?: { record?: boolean }): Promise<Exchange | undefined>;
  /**
   * Counts a planned request as not sent, for `reason` (a pact interaction whose provider state
   * could not be set up): the checks that would have judged it cannot pass in full.
   */
  notSent?(request: ProbeRequest, intent: Intent, reason: string): void;
  /** Records an exchange sent with `record: false`. */
  record(exchange: Exchange): void;
  /** True when no selected check fails on the exchange (property-based probes shrink on false). */
  conforms(exchange: Exchange): boolean;
  remainingRequests(): number;
  /**
   * Counts `requests` planned requests as not sent because one they build on (a create whose
   * jobId they need) was just refused, for the same reason.
   */
  dependentsNotSent(requests: number): void;
  /** Waits `ms`, or less when the run is stopped (time budget, interrupt). */
  sleep(ms: number): Promise<void>;
  /**
   * The time in ms on the clock `sleep` waits on (ConformanceOptions.clock; else a monotonic
   * clock): what a probe measures intervals with. Optional for contexts built by hand.
   */
  now?(): number;
  /**
   * Aborted when the run is interrupted (ConformanceOptions.signal): every send is refused from
   * then on, and a loop that would only plan refused requests (fast-check's runs) ends.
   */
  readonly stopped: AbortSignal;
  /** A note in the report about this probe (why it did less than usual). */
  note(message: string): void;
}

/** A number derived from the run's seed and a label, so each probe has its own stable stream. */
export function deriveSeed(seed: number, label: string): number {
  const digest = createHash('sha256').update(`${seed}:${label}`).digest();
  return digest.readUInt32BE(0) & 0x7fffffff;
}

/**
 * An Idempotency-Key for a request: derived from the seed, the run id, the purpose and the
 * body. The same seed and run id send the same keys (a rerun byte-identical on a fresh server);
 * a new run id gives new keys for the same requests, so a rerun with the same seed against a
 * long-lived server creates jobs again instead of replaying the first run's (and skipping the
 * checks that need new jobs). A key is never reused with another body by accident.
 */
export function idempotencyKeyFor(options: { seed: number; runId: string; purpose: string; body: string }): string {
  const material = `${options.seed}\n${options.runId}\n${options.purpose}\n${options.body}`;
  return `eh-${createHash('sha256').update(material).digest('hex').slice(0, 32)}`;
}

/** A fresh run id: 8 base-36 characters, printed with the seed so that a run can be repeated exactly. */
export function newRunId(): string {
  return randomBytes(6).readUIntBE(0, 6).toString(36).padStart(8, '0').slice(-8);
}

/** What --run-id accepts: 1 to 32 letters, digits, '-' or '_' (it travels inside header values). */
export function isRunId(value: string): boolean {
  return /^[A-Za-z0-9_-]{1,32}$/.test(value);
}

/** Fits a token to a string schema's length bounds (pads or cuts). */
export function fitToLength(token: string, schema: { minLength?: unknown; maxLength?: unknown }): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  const padded = token.length < min ? token + 'x'.repeat(min - token.length) : token;
  return padded.length > max ? padded.slice(0, max) : padded;
}

/** A value that can travel in an HTTP header as it is: visible ASCII, inner spaces allowed. */
export function isSendableHeaderValue(value: unknown): value is string {
  return typeof value === 'string' && /^([\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?)?$/.test(value);
}
