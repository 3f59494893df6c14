/**
 * @module proxy/proxy-types
 * What the proxy reports: each violation with its side, each exchange as kept for the report.
 */
import type { Severity } from '../conformance/failures.js';
import type { DriftFinding } from './profile-drift.js';

export interface Violation {
  readonly check: string;
  /** request: the client broke the contract; response: the upstream did. */
  readonly side: 'request' | 'response';
  readonly severity: Severity;
  readonly operationId?: string;
  readonly message: string;
  /** The exchange's number, from 1. */
  readonly exchange: number;
}

export interface ProxyExchangeRecord {
  readonly id: number;
  readonly method: string;
  readonly path: string;
  readonly operationId?: string;
  /** The status the upstream answered (undefined when it did not), and what the client got. */
  readonly upstreamStatus?: number;
  readonly status: number;
  /** The upstream's answer body, cut to 4 KiB, as kept for the report. */
  readonly upstreamBody?: string;
  readonly violations: readonly string[];
  /** With a profile: the entries the upstream's answer drifted from. */
  readonly drift?: readonly string[];
  readonly blocked?: 'request' | 'response';
  /** The answer was the scenario's fault, not the upstream's (`scenario` names it). */
  readonly injected?: string;
  readonly durationMs: number;
}

export interface ProxyReport {
  readonly tool: 'evidence-harness proxy';
  readonly upstream: string;
  readonly spec: string;
  readonly exchanges: number;
  /** Answers the scenario injected instead of forwarding (never judged as the server's). */
  readonly injected: number;
  readonly violations: readonly Violation[];
  /** The most recent exchanges (at most 1,000), oldest first. */
  readonly recent: readonly ProxyExchangeRecord[];
  /** With a profile (`--profile`): its file, as given. */
  readonly profile?: string;
  /** With a profile: one finding per entry the upstream drifted from, in the register's order. */
  readonly drift?: readonly DriftFinding[];
  /** With a profile: how many exchanges drifted from at least one entry. */
  readonly driftCount?: number;
}
