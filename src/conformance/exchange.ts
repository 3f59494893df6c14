/**
 * @module conformance/exchange
 * One request the runner sent and what came back, with the intent that says why it was sent.
 * Probes produce exchanges; checks judge them. The intent is what lets a check know what the
 * answer should have been (a mutation expects 400, a replay expects the same jobId, …).
 */
import type { ConstraintKind } from './generators/mutations.js';

/** A request as sent (headers already include the caller's credentials). */
export interface SentRequest {
  readonly method: string;
  /** The absolute URL. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface ReceivedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly contentType: string | null;
  readonly bodyText: string;
  /** The parsed body, or undefined when the body is not JSON. */
  readonly json: unknown;
}

/** The documented rejection a negative input must get. */
export interface ExpectedRejection {
  /** An exact status, or 'any-4xx' when the operation documents no 400 (docs/assumptions.md A-23). */
  readonly status: number | 'any-4xx';
  /** Why this status: the rule of the spec or the assumption. */
  readonly because: string;
}

/** A status a job was seen in, in the order the runner saw them. */
export interface JobObservation {
  readonly status: string;
  readonly evaluation?: string;
}

export type Intent =
  /** The reachability probe sent before anything else. */
  | { readonly kind: 'preflight' }
  /** A schema-valid input: a spec example, a boundary value or a generated value. */
  | { readonly kind: 'positive'; readonly source: 'example' | 'boundary' | 'generated'; readonly description: string }
  /** A valid createEvaluation that a stateful probe builds on (also a positive input). */
  | { readonly kind: 'create'; readonly purpose: string }
  /** An input breaking exactly one constraint. */
  | {
      readonly kind: 'negative';
      readonly location: 'body' | 'header' | 'path';
      readonly pointer: string;
      readonly constraint: ConstraintKind;
      readonly overMaximum: boolean;
      readonly description: string;
      readonly expected: ExpectedRejection;
    }
  | { readonly kind: 'missing-header'; readonly header: string; readonly expected: ExpectedRejection }
  | { readonly kind: 'malformed-json'; readonly expected: ExpectedRejection }
  /** The first read of a job just created. */
  | { readonly kind: 'read-created'; readonly jobId: string }
  /** A poll of a job; `history` is what earlier reads of the same job showed. */
  | {
      readonly kind: 'poll';
      readonly jobId: string;
      readonly history: readonly JobObservation[];
      /** Set on the last poll of a job: whether it reached a final state in time. */
      readonly end?: { readonly reachedFinal: boolean; readonly elapsedMs: number; readonly timeoutMs: number };
    }
  | { readonly kind: 'replay'; readonly jobId: string }
  | { readonly kind: 'reserialized-replay'; readonly jobId: string }
  | { readonly kind: 'conflict'; readonly jobId: string }
  | { readonly kind: 'second-caller'; readonly jobId: string }
  | { readonly kind: 'unknown-job' }
  | { readonly kind: 'verification-example'; readonly description: string }
  | { readonly kind: 'oversized-body'; readonly bytes: number; readonly expected: ExpectedRejection }
  | { readonly kind: 'undeclared-method'; readonly method: string; readonly path: string }
  | { readonly kind: 'undeclared-path'; readonly path: string };

export type IntentKind = Intent['kind'];

export interface Exchange {
  /** Sequence number in the run, from 1. */
  readonly id: number;
  /** The operation of the spec the request targets (undefined outside the contract). */
  readonly operationId?: string;
  /** Which caller sent it: 1 (--header) or 2 (--second-caller-header). */
  readonly caller: 1 | 2;
  intent: Intent;
  readonly request: SentRequest;
  /** Undefined when no answer came (timeout, refused connection, refused redirect). */
  readonly response?: ReceivedResponse;
  /** Why no usable answer came, e.g. "no answer within 10000 ms". */
  readonly transportError?: string;
  /** Notes from the transport, e.g. a 429 retried or a redirect not followed. */
  readonly notes: readonly string[];
  /** True when the answer is still 429 after waiting Retry-After and retrying once (A-11). */
  readonly rateLimited: boolean;
  readonly durationMs: number;
}

export function describeResponse(exchange: Exchange): string {
  if (!exchange.response) return `no answer (${exchange.transportError ?? 'unknown transport error'})`;
  const body = exchange.response.bodyText;
  const shown = body.length > 300 ? `${body.slice(0, 300)}… (${body.length} characters)` : body;
  return `${exchange.response.status}${shown ? ` ${shown}` : ' (empty body)'}`;
}
