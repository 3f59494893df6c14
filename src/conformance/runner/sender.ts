/**
 * @module conformance/runner/sender
 * How a probe's request goes out: the operation filters and the run state say whether it may
 * (a refused request is counted for the checks that needed it, never silently dropped), the
 * caller's credentials and the beforeRequest hook shape it, the transport sends it (node:http or
 * an injected Fetch function), and the answer comes back as an exchange, recorded for judging.
 */
import { compilePathTemplate } from '../../contract/path-template.js';
import type { OperationDescription } from '../../openapi/document.js';
import type { Exchange, Intent } from '../exchange.js';
import { type ConformanceHooks, HookError, type HookRequest } from '../hooks.js';
import type { OutgoingRequest, Transport, TransportResult } from '../http/transport.js';
import type { OperationFilter } from '../operation-filter.js';
import type { ProbeRequest } from '../probes/probe-context.js';
import type { CassetteRecorder } from '../report/cassette.js';
import type { RunState } from './run-state.js';

/** Requests outside the contract share one timeout streak; each operation has its own. */
const outsideTheContract = 'routes outside the contract';

/** Whether a filled path still has the shape of its template: each {parameter} one non-empty segment. */
export function pathFitsTemplate(path: string, template: string): boolean {
  return compilePathTemplate(template).test(path.split('?')[0] ?? path);
}

export interface SenderOptions {
  readonly state: RunState;
  readonly transport: Pick<Transport, 'send' | 'urlOf'>;
  readonly filter: Pick<OperationFilter, 'leftOutBecause'>;
  /** Each caller's headers (credentials). */
  readonly callers: Readonly<Record<1 | 2, Readonly<Record<string, string>>>>;
  readonly timeoutMs: number;
  /** The end of the time budget: no request runs past it. */
  readonly deadline: number;
  /** Counts a request that was not sent in the coverage of the contract. */
  readonly refused?: (refusal: { operationId: string | undefined; intent: Intent; request: ProbeRequest; reason: string }) => void;
  readonly hooks?: Pick<ConformanceHooks, 'beforeRequest' | 'afterResponse'> | undefined;
  readonly cassette?: Pick<CassetteRecorder, 'add'> | undefined;
  /** Takes credentials out of a hook's error message. */
  readonly scrub?: (text: string) => string;
}

export class Sender {
  constructor(private readonly options: SenderOptions) {}

  /**
   * Sends a request and records the exchange for judging (unless `record: false`). Resolves to
   * undefined, sending nothing, when the request may not go; the run state counts it as not
   * sent (or left out by the filters), with the reason.
   */
  async send(request: ProbeRequest, intent: Intent, sendOptions: { record?: boolean } = {}): Promise<Exchange | undefined> {
    const { state } = this.options;
    // A request whose path leaves its operation's template (an empty jobId: /v0/jobs/) is a
    // route outside the contract: contract checks do not judge its answer.
    const operation = request.operation && pathFitsTemplate(request.path, request.operation.path) ? request.operation : undefined;
    const group = operation?.operationId ?? outsideTheContract;
    // Judged on the operation the request was built for: a mutated path still belongs to it.
    // The preflight only asks whether the target answers; it goes whatever the filters say.
    const filteredOut = intent.kind === 'preflight' ? undefined : this.options.filter.leftOutBecause(request.operation);
    if (filteredOut) return this.refuse({ request, operation, intent, reason: filteredOut, byFilter: true });
    const refusal = state.refusalFor(group);
    if (refusal) return this.refuse({ request, operation, intent, reason: refusal });
    const id = state.requestGoes();
    const startedAt = Date.now();
    const plain = this.outgoing(request);
    // No await without a hook: a burst's requests reach the transport in the order their ids were taken.
    const beforeRequest = this.options.hooks?.beforeRequest;
    const outgoing = beforeRequest ? await this.hooked(plain, beforeRequest) : plain;
    const result = await this.options.transport.send(outgoing, { timeoutMs: this.options.timeoutMs, runDeadline: this.options.deadline });
    state.requestCameBack(result.requestsSent);
    // Cut by the run's own stop or by the end of the budget: that says nothing about the server.
    if (result.interrupted || result.cutByRunDeadline)
      return this.refuse({ request, operation, intent, reason: state.stoppedBecause() ?? 'the run was stopped' });
    state.timedOut(group, result.timedOut);
    const exchange = exchangeOf({ id, operation, caller: request.caller ?? 1, intent, result });
    this.options.cassette?.add(exchange, { startedAt });
    const { hooks } = this.options;
    if (hooks?.afterResponse) await this.callHook('afterResponse', () => hooks.afterResponse?.(exchange));
    if (sendOptions.record !== false) state.record(exchange, request.operation?.operationId);
    return exchange;
  }

  /** Counts a request the probe decided not to send, with why: as a refusal, for the checks that needed it. */
  notSent(request: ProbeRequest, intent: Intent, reason: string): void {
    const operation = request.operation && pathFitsTemplate(request.path, request.operation.path) ? request.operation : undefined;
    this.refuse({ request, operation, intent, reason });
  }

  /** The request as it goes: the caller's credentials, unless it goes without them. */
  private outgoing(request: ProbeRequest): OutgoingRequest {
    // A header the request sets itself replaces the caller's of the same name, whatever its case.
    const own = new Set(Object.keys(request.headers ?? {}).map((name) => name.toLowerCase()));
    const callerHeaders = Object.entries(this.options.callers[request.caller ?? 1]).filter(([name]) => !own.has(name.toLowerCase()));
    const headers = request.withoutCredentials ? { ...request.headers } : { ...Object.fromEntries(callerHeaders), ...request.headers };
    return { method: request.method, path: request.path, headers, ...(request.body === undefined ? {} : { body: request.body }) };
  }

  /** What beforeRequest makes of a request (it may change the headers and the body). */
  private async hooked(outgoing: OutgoingRequest, beforeRequest: NonNullable<ConformanceHooks['beforeRequest']>): Promise<OutgoingRequest> {
    const { body } = outgoing;
    const hooked: HookRequest = {
      method: outgoing.method,
      url: this.options.transport.urlOf(outgoing.path),
      headers: { ...outgoing.headers },
      ...(body === undefined ? {} : { body }),
    };
    const final = (await this.callHook('beforeRequest', () => beforeRequest.call(this.options.hooks, hooked))) ?? hooked;
    return {
      method: outgoing.method,
      path: outgoing.path,
      headers: { ...final.headers },
      ...(final.body === undefined ? {} : { body: final.body }),
    };
  }

  /**
   * Counts a request that does not go, with the request as it would have been recorded,
   * unanswered: what the checks are asked about when it is not sent.
   */
  private refuse(refusal: {
    request: ProbeRequest;
    operation: OperationDescription | undefined;
    intent: Intent;
    reason: string;
    byFilter?: boolean;
  }): undefined {
    const { request, operation, intent, reason } = refusal;
    this.options.refused?.({ operationId: request.operation?.operationId, intent, request, reason });
    const unanswered: Exchange = {
      id: 0,
      ...(operation ? { operationId: operation.operationId } : {}),
      caller: request.caller ?? 1,
      intent,
      request: { method: request.method, url: this.options.transport.urlOf(request.path), headers: request.headers ?? {} },
      transportError: `not sent: ${reason}`,
      notes: [],
      rateLimited: false,
      durationMs: 0,
    };
    const { state } = this.options;
    return refusal.byFilter ? state.leftOut({ reason, request: unanswered }) : state.notSent({ reason, request: unanswered });
  }

  /** Runs a hook; one that throws stops the run (HookError), since what it was for did not happen. */
  private async callHook<T>(name: string, call: () => T | Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const message = String((error as Error)?.message ?? error);
      throw new HookError(`the ${name} hook threw: ${(this.options.scrub?.(message) ?? message).slice(0, 400)}`);
    }
  }
}

function exchangeOf(parts: {
  id: number;
  operation: OperationDescription | undefined;
  caller: 1 | 2;
  intent: Intent;
  result: TransportResult;
}): Exchange {
  const { result } = parts;
  return {
    id: parts.id,
    ...(parts.operation ? { operationId: parts.operation.operationId } : {}),
    caller: parts.caller,
    intent: parts.intent,
    request: result.request,
    ...(result.response ? { response: result.response } : {}),
    ...(result.transportError ? { transportError: result.transportError } : {}),
    notes: result.notes,
    rateLimited: result.rateLimited,
    durationMs: result.durationMs,
  };
}
