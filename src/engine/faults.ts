/**
 * @module engine/faults
 * Forced errors: decides whether a call answers a scenario's fault instead of its natural
 * answer. Counters for "the next N calls" and the seeded draw for fractions live here, so a
 * run with the same seed fails the same calls.
 */

import type { ErrorCode } from '../contract/index.js';
import { situationOfForcedStatus } from '../profile/engine-profile.js';
import type { Random } from './random.js';
import type { EngineError } from './responses.js';
import type { OperationId } from './router.js';
import { type Fault, isForcible, type Scenario } from './scenario.js';

const codeFor: Record<number, (operationId: OperationId) => ErrorCode> = {
  400: () => 'invalid_request',
  404: (operationId) => (operationId === 'getJob' ? 'job_not_found' : 'route_not_found'),
  409: () => 'idempotency_key_conflict',
  413: () => 'limit_exceeded',
  429: () => 'rate_limited',
  500: () => 'internal_error',
  503: () => 'service_unavailable',
};

export interface ForcedAnswer {
  readonly error: EngineError;
  readonly latencyMs: number;
}

/** The forced error for `status` on `operationId`, as the contract's Error body. */
export function forcedError(options: {
  status: number;
  operationId: OperationId;
  scenario: string;
  message?: string;
  retryAfter?: number;
}): EngineError {
  const { status, operationId, scenario } = options;
  const code = (codeFor[status] ?? (() => 'internal_error'))(operationId);
  const retryAfter = options.retryAfter ?? (status === 429 || status === 503 ? 1 : undefined);
  return {
    status,
    code,
    message: options.message ?? `Forced by scenario '${scenario}': ${status} on ${operationId}.`,
    ...(situationOfForcedStatus[status] ? { situation: situationOfForcedStatus[status] } : {}),
    ...(retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } }),
  };
}

/** Counts firings of a scenario's counted (`times`) faults; shared by replicas on a networked store. */
export type FaultCounter = (key: string) => Promise<number>;

export class FaultInjector {
  /** Firings so far per fault, for faults with `times`, when no shared counter is given. */
  private readonly fired = new WeakMap<Fault, number>();

  /**
   * `epoch` names this injector's life (a new one starts at every scenario change or reset), so
   * a shared counter's keys start from zero with it.
   */
  constructor(private readonly options: { readonly random: Random; readonly counter?: FaultCounter; readonly epoch?: number }) {}

  /** The fault to answer with for this call, if any (health never gets one: A-8). */
  async decide(options: { scenario: Scenario; operationId: OperationId }): Promise<ForcedAnswer | undefined> {
    const { scenario, operationId } = options;
    if (operationId === 'health') return undefined;
    for (const [index, fault] of scenario.faults.entries()) {
      if (fault.operation !== '*' && fault.operation !== operationId) continue;
      // A '*' fault skips the operations whose contract has no room for its status.
      if (!isForcible(operationId, fault.status)) continue;
      if (fault.times !== undefined) {
        if (!(await this.take({ fault, key: `${this.options.epoch ?? 0}:${scenario.name}:${index}` }))) continue;
      } else if (fault.fraction !== undefined && this.options.random.next() >= fault.fraction) {
        continue;
      }
      return {
        error: forcedError({
          status: fault.status,
          operationId,
          scenario: scenario.name,
          ...(fault.message === undefined ? {} : { message: fault.message }),
          ...(fault.retryAfter === undefined ? {} : { retryAfter: fault.retryAfter }),
        }),
        latencyMs: fault.latencyMs ?? 0,
      };
    }
    return undefined;
  }

  /** Whether a counted fault still fires: one more firing counted, at most `times` of them. */
  private async take(options: { fault: Fault; key: string }): Promise<boolean> {
    const { fault, key } = options;
    const times = fault.times ?? 0;
    if (this.options.counter) return (await this.options.counter(key)) <= times;
    const fired = this.fired.get(fault) ?? 0;
    if (fired >= times) return false;
    this.fired.set(fault, fired + 1);
    return true;
  }
}
