/**
 * @module proxy/proxy-context
 * What every exchange of one proxy shares: the contract and its checks, the one outbound client,
 * the traffic seen so far, the scenario's faults, and the ledger that keeps what is reported.
 */
import type { Check } from '../conformance/checks/check.js';
import type { CassetteEntry } from '../conformance/report/har.js';
import type { Scrubber } from '../conformance/secrets.js';
import type { FaultInjector } from '../engine/faults.js';
import type { Scenario } from '../engine/scenario.js';
import type { OutboundClient } from '../http/outbound-client.js';
import type { ContractDocument } from '../openapi/document.js';
import type { ResponseValidator } from '../openapi/response-validator.js';
import type { ForwardLimits } from './forward.js';
import type { ProfileWatcher } from './profile-watch.js';
import type { ProxyExchangeRecord, ProxyReport, Violation } from './proxy-types.js';
import type { TrafficState } from './traffic-state.js';

export interface ProxyContext {
  readonly options: { readonly errors?: boolean };
  readonly contract: ContractDocument;
  readonly validator: ResponseValidator;
  readonly setting: { readonly contract: ContractDocument; readonly validator: ResponseValidator; readonly checks: readonly Check[] };
  readonly limits: ForwardLimits;
  readonly client: OutboundClient;
  readonly upstream: URL;
  readonly state: TrafficState;
  readonly faults: FaultInjector;
  readonly scenario: Scenario | undefined;
  readonly ledger: ProxyLedger;
  readonly log: ((line: string) => void) | undefined;
  /** The authorities an absolute-form target may name (the proxy's own). */
  ownAuthorities(): ReadonlySet<string>;
  /** Where a target was sent: the upstream's base URL and the target. */
  upstreamUrl(target: string): string;
  /**
   * The one scrubber (src/conformance/secrets.ts), for everything the proxy writes: it learns each
   * request's credentials (credential headers, query parameters, userinfo) and each answer's
   * Set-Cookie values, and takes them out of the log, the report and the cassette.
   */
  readonly scrubber: Scrubber;
  /** Keeps an exchange in the cassette when recording; the entry is built only then. */
  recordIf(entryOf: () => CassetteEntry): void;
  /** Who reads each answered exchange against a profile (drift, passive learning); none by default. */
  readonly profileWatchers: readonly ProfileWatcher[];
  /** The header naming a caller: the profile's A-10.caller, Authorization without one. */
  readonly credentialHeader: string;
  /** The scheme of the caller's credential, when a profile declares one (A-10.caller). */
  readonly callerScheme?: string;
}

/** Violations and exchanges kept: a long session must not grow without bound. */
const maxViolations = 10_000;
const maxRecent = 1_000;

/** What the proxy reports, bounded. */
export class ProxyLedger {
  private exchanges = 0;
  private injected = 0;
  private readonly violations: Violation[] = [];
  private readonly recent: ProxyExchangeRecord[] = [];
  /** Exchanges each check or request rule judged (passed or failed). */
  readonly applied = new Map<string, number>();

  nextId(): number {
    this.exchanges += 1;
    return this.exchanges;
  }

  noteInjected(): void {
    this.injected += 1;
  }

  tally(name: string): void {
    this.applied.set(name, (this.applied.get(name) ?? 0) + 1);
  }

  keep(record: ProxyExchangeRecord, found: readonly Violation[]): void {
    for (const violation of found) if (this.violations.length < maxViolations) this.violations.push(violation);
    this.recent.push(record);
    if (this.recent.length > maxRecent) this.recent.shift();
  }

  report(options: { upstream: string; spec: string }): ProxyReport {
    return {
      tool: 'evidence-harness proxy',
      upstream: options.upstream,
      spec: options.spec,
      exchanges: this.exchanges,
      injected: this.injected,
      violations: [...this.violations],
      recent: [...this.recent],
    };
  }
}
