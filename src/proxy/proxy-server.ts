/**
 * @module proxy/proxy-server
 * `evidence-harness proxy`: a reverse proxy in front of a real implementation that judges every
 * exchange against the contract as it passes. The client's request is judged by the request
 * rules (the client's fault); the upstream's answer by the conformance runner's own check
 * registry, with intents rebuilt from the traffic seen so far, so one rule means the same thing
 * in `conformance` and in `proxy` (the server's fault). The answer goes back unchanged, with a
 * Contract-Violations header naming what it broke; with `errors`, a request that breaks the
 * contract is answered 400 without reaching the upstream, and an answer that breaks it is
 * replaced by a 502. Each exchange is one run of proxy-exchange.ts; this module wires the
 * server edge, the one outbound client and what the exchanges share.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checks as registry } from '../conformance/checks/registry.js';
import { checksWithProfile } from '../conformance/profile/profile-checks.js';
import type { ConformanceReport } from '../conformance/report/report.js';
import { Scrubber } from '../conformance/secrets.js';
import { bodyLimits } from '../contract/index.js';
import { FaultInjector } from '../engine/faults.js';
import { createRandom } from '../engine/random.js';
import type { Scenario } from '../engine/scenario.js';
import { connectRefused } from '../http/early-answers.js';
import { OutboundClient, type OutboundTls } from '../http/outbound-client.js';
import { createServerEdge } from '../http/server-edge.js';
import { type ContractDocument, loadContract } from '../openapi/document.js';
import { packageVersion } from '../openapi/package-root.js';
import { ResponseValidator } from '../openapi/response-validator.js';
import type { ServerProfile } from '../profile/profile.js';
import { createControlGuard } from '../server/control-guard.js';
import { sendAnswer } from '../server/node-adapter.js';
import { type CassetteLimits, ProxyCassette } from './cassette.js';
import type { ForwardLimits } from './forward.js';
import { ProfileDriftWatcher } from './profile-drift.js';
import type { ProfileWatcher } from './profile-watch.js';
import { type ProxyContext, ProxyLedger } from './proxy-context.js';
import { handleExchange } from './proxy-exchange.js';
import { asConformanceReport } from './proxy-report.js';
import type { ProxyReport } from './proxy-types.js';
import { ownAuthorities } from './targets.js';
import { TrafficState } from './traffic-state.js';

export type { ProxyExchangeRecord, ProxyReport, Violation } from './proxy-types.js';

export interface ProxyServerOptions {
  /** The implementation to forward to, e.g. http://127.0.0.1:8080 (a base path is kept). */
  readonly upstream: string;
  /** Default 4010; 0 picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** The OpenAPI document (path, or loaded). Default: the bundled spec/openapi.yaml. */
  readonly spec?: string | ContractDocument;
  /** Refuse a violating request with 400 and replace a violating answer with a 502. */
  readonly errors?: boolean;
  readonly limits?: Partial<ForwardLimits>;
  /** How an https upstream's certificate is checked (--ca, --insecure). */
  readonly tls?: OutboundTls;
  /** Connections open at once to the upstream. Default 64. */
  readonly maxUpstreamConnections?: number;
  /** Header names whose values are credentials, besides the defaults (--credential-header). */
  readonly credentialHeaders?: readonly string[];
  /** Bounds of the cassette kept with `record`. */
  readonly cassette?: Partial<CassetteLimits>;
  /** Receives one line per exchange, naming its violations. */
  readonly log?: (line: string) => void;
  /** Keep the exchanges (the last 10,000, 64 MiB in all) for a HAR cassette (`cassette()`, `writeCassette()`), credentials scrubbed. */
  readonly record?: boolean;
  /**
   * Faults to inject into the real traffic, in the mock's scenario language restricted to
   * `faults` and `latencyMs` (a forced status with its Error body and Retry-After, for a
   * fraction or the next N calls of an operation, with a delay). An injected answer never
   * reaches the upstream, is marked in the log and report, and is never a server violation.
   */
  readonly scenario?: Scenario;
  /** Seeds the fractions of the scenario's faults. */
  readonly seed?: number;
  /** Who reads each answered exchange against a profile: drift (`--profile`), passive learning (`--write-profile`). */
  readonly profileWatchers?: readonly ProfileWatcher[];
  /** The header naming a caller, for the watchers. Default: the profile's A-10.caller, else Authorization. */
  readonly credentialHeader?: string;
  /**
   * The one scrubber, when the caller writes what the traffic showed too (a profile learnt from it,
   * A-69): it learns each exchange's credentials here. Default: one made from `credentialHeaders`.
   */
  readonly scrubber?: Scrubber;
  /**
   * Hold each answered exchange to this profile's declared entries (`--profile`, A-68): an answer
   * departing from one is drift, in the Profile-Drift header, the log line and the report.
   */
  readonly profile?: ServerProfile;
}

export interface RunningProxy {
  readonly url: string;
  readonly port: number;
  report(): ProxyReport;
  /** The findings in the runner's report shape, for its JUnit and HTML reporters. */
  conformanceReport(): ConformanceReport;
  /** The exchanges kept with `record`, as a HAR 1.2 document (credentials scrubbed). */
  cassette(): ReturnType<ProxyCassette['toHar']>;
  /** Writes the cassette to a file entry by entry; rejects with the reason it could not. */
  writeCassette(file: string): Promise<void>;
  close(options?: { graceMs?: number }): Promise<void>;
}

export const proxyDefaults = {
  timeoutMs: 30_000,
  maxResponseBytes: 4 * 1024 * 1024,
  maxCapturedRequestBytes: Math.max(bodyLimits.createEvaluationBytes, bodyLimits.verifyReportBytes) + 1,
} as const;

/** Why a scenario cannot be injected into real traffic, if it cannot: only its faults and latency can. */
export function proxyScenarioProblem(scenario: Scenario): string | undefined {
  if (scenario.job !== undefined || scenario.rules.length > 0)
    return `scenario '${scenario.name}' has a job timeline or rules; the proxy injects only faults and latency (the upstream's jobs are its own)`;
  if (scenario.faults.length === 0 && scenario.latencyMs === 0) return `scenario '${scenario.name}' has no faults and no latency to inject`;
  return undefined;
}

export async function startProxyServer(options: ProxyServerOptions): Promise<RunningProxy> {
  const upstream = new URL(options.upstream);
  const scenario = options.scenario;
  if (scenario) {
    const problem = proxyScenarioProblem(scenario);
    if (problem) throw new RangeError(`startProxyServer: ${problem}`);
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:')
    throw new RangeError(`startProxyServer: upstream must be an http or https URL, got ${options.upstream}`);
  if (upstream.username || upstream.password) throw new RangeError('startProxyServer: upstream must not carry a user name or password');
  const startedAt = Date.now();
  const host = options.host ?? '127.0.0.1';
  const contract = typeof options.spec === 'object' ? options.spec : await loadContract(options.spec ? { source: options.spec } : {});
  const validator = new ResponseValidator(contract, { allErrors: false });
  const limits: ForwardLimits = { ...proxyDefaults, ...options.limits };
  const client = new OutboundClient({
    deadlineMs: limits.timeoutMs,
    maxBodyBytes: limits.maxResponseBytes,
    // Judged decoded within the same budget, at most 3 codings; the client gets the bytes as sent.
    maxDecodedBytes: limits.maxResponseBytes,
    maxCodings: 3,
    connectionsPerOrigin: options.maxUpstreamConnections ?? 64,
    ...(options.tls ? { tls: options.tls } : {}),
  });
  const upstreamBase = upstream.href.replace(/\/+$/, '');
  const cassette = options.record
    ? new ProxyCassette({
        creator: { name: 'evidence-harness proxy', version: packageVersion() },
        ...(options.cassette ? { limits: options.cassette } : {}),
      })
    : undefined;
  const ledger = new ProxyLedger();
  const credentialHeader = options.credentialHeader ?? options.profile?.entries['A-10.caller'].header ?? 'Authorization';
  // The profile's caller header carries credentials, whatever its name: scrubbed like Authorization
  // (a scrubber given by the caller is told so by its maker: the CLI adds the header to it).
  const scrubber =
    options.scrubber ??
    new Scrubber({
      credentialHeaders: [...(options.credentialHeaders ?? []), ...(options.profile ? [credentialHeader] : [])],
    });
  const drift = options.profile ? new ProfileDriftWatcher({ profile: options.profile, scrubber, credentialHeader }) : undefined;
  let own: ReadonlySet<string> = new Set();
  const context: ProxyContext = {
    options: { ...(options.errors ? { errors: true } : {}) },
    contract,
    validator,
    // Under a profile, the server's own vocabulary and decisions are no advisory failure (A-53).
    setting: {
      contract,
      validator,
      checks: options.profile ? checksWithProfile(registry, options.profile, { entryChecks: false }) : registry,
    },
    limits,
    client,
    upstream,
    state: new TrafficState(),
    faults: new FaultInjector({ random: createRandom(options.seed === undefined ? {} : { seed: options.seed }) }),
    scenario,
    ledger,
    log: options.log,
    ownAuthorities: () => own,
    upstreamUrl: (target) => (target.startsWith('/') ? `${upstreamBase}${target}` : target),
    scrubber,
    recordIf: (entryOf) => {
      if (cassette) cassette.add(entryOf(), scrubber);
    },
    profileWatchers: [...(drift ? [drift] : []), ...(options.profileWatchers ?? [])],
    credentialHeader,
    ...(options.profile ? { callerScheme: options.profile.entries['A-10.caller'].scheme } : {}),
  };
  // Scrubbed again when read: a credential learnt after an exchange was kept (a Set-Cookie value) is taken out too.
  const report = (): ProxyReport =>
    scrubber.scrubDeep({
      ...ledger.report({ upstream: upstream.href, spec: contract.source }),
      ...(drift && options.profile ? { profile: options.profile.source, drift: drift.findings(), driftCount: drift.driftCount } : {}),
    });
  // The report holds the upstream's answers: only this machine may read it, as the mock's control API.
  const reportGuard = createControlGuard({ listeningHost: host, origins: [], tokenInForce: false });
  const serveReport = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    incoming.resume();
    const verdict = reportGuard.check({ host: incoming.headers.host, origin: incoming.headers.origin });
    if (!verdict.allowed) return sendAnswer(verdict.answer, outgoing);
    const body = JSON.stringify(report(), null, 2);
    outgoing.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  };
  const edge = createServerEdge({
    connectRefusal: connectRefused('proxy'),
    // The edge's defaults: 10 s for headers, a body cut when it stalls (A-41), 5 s keep-alive.
    timeouts: { headersMs: 10_000, keepAliveMs: 5_000 },
    onRequest: (incoming, outgoing) => {
      if (incoming.method === 'GET' && (incoming.url ?? '').split('?')[0] === '/__proxy/report') return serveReport(incoming, outgoing);
      void handleExchange(context, incoming, outgoing);
    },
  });
  let port: number;
  try {
    port = await edge.listen({ port: options.port ?? 4010, host });
  } catch (error) {
    await client.close();
    throw error;
  }
  own = ownAuthorities({ host, port });
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    report,
    conformanceReport: () =>
      asConformanceReport({
        report: report(),
        applied: ledger.applied,
        startedAt,
        ...(drift ? { drift: { watched: drift.watched, judged: drift.judged } } : {}),
      }),
    cassette: () => (cassette ?? new ProxyCassette({ creator: { name: 'evidence-harness proxy', version: packageVersion() } })).toHar(),
    writeCassette: async (file) => {
      if (!cassette) throw new Error('the proxy was started without record');
      await cassette.write(file);
    },
    close: async ({ graceMs = 5000 } = {}) => {
      await edge.close({ graceMs });
      await client.close();
    },
  };
}
