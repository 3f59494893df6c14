/**
 * @module proxy/proxy-server
 * `evidence-harness proxy`: a reverse proxy in front of a real implementation that judges every
 * exchange against the contract as it passes. The client's request is judged by the request
 * rules (the client's fault); the upstream's answer by the conformance runner's own check
 * registry, with intents rebuilt from the traffic seen so far (a replay, a conflict, a poll and
 * its history, another caller's read), so one rule means the same thing in `conformance` and
 * in `proxy` (the server's fault). The answer goes back unchanged, with a Contract-Violations
 * header naming what it broke; with `errors`, a request that breaks the contract is answered
 * 400 without reaching the upstream, and an answer that breaks it is replaced by a 502.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { checks as registry } from '../conformance/checks/registry.js';
import type { Exchange, Intent, ReceivedResponse } from '../conformance/exchange.js';
import type { Severity } from '../conformance/failures.js';
import { toReceived as toReceivedAnswer } from '../conformance/http/transport.js';
import { verdictsOn } from '../conformance/judge.js';
import { buildHar, type CassetteEntry, scrubCredentials } from '../conformance/report/har.js';
import type { ConformanceReport } from '../conformance/report/report.js';
import { bodyLimits } from '../contract/index.js';
import { anonymousCaller, callerFingerprint } from '../engine/caller.js';
import { FaultInjector } from '../engine/faults.js';
import { createRandom } from '../engine/random.js';
import { errorAnswer } from '../engine/responses.js';
import type { OperationId } from '../engine/router.js';
import type { Scenario } from '../engine/scenario.js';
import { type ContractDocument, loadContract } from '../openapi/document.js';
import { packageVersion } from '../openapi/package-root.js';
import { ResponseValidator } from '../openapi/response-validator.js';
import { createControlGuard } from '../server/control-guard.js';
import { clientErrorAnswer, rawErrorResponse } from '../http/early-answers.js';
import { answerHeadersForClient, type ForwardLimits, type ForwardOutcome, forward } from './forward.js';
import { asConformanceReport } from './proxy-report.js';
import { judgeRequest, matchOperation, type RequestViolation } from './request-rules.js';
import { TrafficState } from './traffic-state.js';
import { UpstreamClient } from './upstream-client.js';

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
  /** Receives one line per exchange, naming its violations. */
  readonly log?: (line: string) => void;
  /** Keep every exchange (the last 10,000) for a HAR cassette (`cassette()`), credentials scrubbed. */
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
}

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
}

export interface RunningProxy {
  readonly url: string;
  readonly port: number;
  report(): ProxyReport;
  /** The findings in the runner's report shape, for its JUnit and HTML reporters. */
  conformanceReport(): ConformanceReport;
  /** The exchanges kept with `record`, as a HAR 1.2 document (credentials scrubbed). */
  cassette(): ReturnType<typeof buildHar>;
  close(options?: { graceMs?: number }): Promise<void>;
}

export const proxyDefaults = {
  timeoutMs: 30_000,
  maxResponseBytes: 4 * 1024 * 1024,
  maxCapturedRequestBytes: Math.max(bodyLimits.createEvaluationBytes, bodyLimits.verifyReportBytes) + 1,
} as const;

/** The request rules that judge a request of an operation, besides request_operation_known. */
const rulesWithoutBody = ['request_parameters'] as const;
const rulesWithBody = ['request_parameters', 'request_media_type', 'request_json_valid', 'request_body_schema'] as const;

/** Violations kept in memory (and in the report): a long session must not grow without bound. */
const maxViolations = 10_000;
const maxRecent = 1_000;
const maxRecorded = 10_000;
/** Each body in the cassette, and all of them together: a long session must not grow without bound. */
const maxRecordedBody = 1024 * 1024;
const maxRecordedBytes = 64 * 1024 * 1024;

function errorBody(code: string, message: string): string {
  return JSON.stringify({ code, message: message.length > 1024 ? `${message.slice(0, 1023)}…` : message });
}

/**
 * The upstream's answer as the checks judge it: its body decoded from its Content-Encoding
 * (browsers and fetch ask for gzip, and servers behind a load balancer answer so), bounded by
 * the same cap as the body itself so that a compression bomb stops there. The client still gets
 * the upstream's bytes unchanged. An encoding the proxy cannot decode is left unjudged.
 */
function toReceived(outcome: Extract<ForwardOutcome, { kind: 'answered' }>, maxBytes: number): ReceivedResponse {
  const headers: Record<string, string> = {};
  // for…in, not Object.entries: the parser's headers have no prototype, and entries() of such a
  // dictionary took a slow runtime path (about 4 µs an exchange in a profile under load).
  const answerHeaders = outcome.answer.headers;
  for (const name in answerHeaders) {
    const value = answerHeaders[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const status = outcome.answer.status;
  const contentType = headers['content-type'] ?? null;
  let body: Buffer;
  try {
    body = decoded(outcome.answer.body, headers['content-encoding'], maxBytes);
  } catch (error) {
    const message = `the answer's Content-Encoding '${String(headers['content-encoding']).slice(0, 40)}' could not be decoded within ${maxBytes} bytes (${(error as Error).message.slice(0, 80)})`;
    return { status, headers, contentType, bodyText: '', json: undefined, incomplete: { reason: 'undecodable', bytes: 0, message } };
  }
  // The runner's own reading: the same bounds on nesting and on the number of values.
  return toReceivedAnswer({ status, headers, body });
}

function decoded(body: Buffer, contentEncoding: string | undefined, maxBytes: number): Buffer {
  if (contentEncoding === undefined || contentEncoding === '') return body;
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
  let result = body;
  const bounded = { maxOutputLength: maxBytes };
  for (const coding of codings) {
    if (coding === 'gzip' || coding === 'x-gzip') result = gunzipSync(result, bounded);
    else if (coding === 'deflate') result = inflateSync(result, bounded);
    else if (coding === 'br') result = brotliDecompressSync(result, bounded);
    else throw new Error(`unknown coding ${coding}`);
  }
  return result;
}

/** Reads a request body whole, up to `limit` bytes (the rest is drained and counted). */
function readBody(incoming: IncomingMessage, limit: number): Promise<{ body: Buffer; bytes: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let bytes = 0;
    incoming.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (kept < limit) {
        const part = chunk.subarray(0, limit - kept);
        chunks.push(part);
        kept += part.length;
      }
    });
    incoming.on('end', () => resolve({ body: Buffer.concat(chunks), bytes }));
    incoming.on('error', reject);
  });
}

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
  const startedAt = Date.now();
  const reportGuard = createControlGuard({ listeningHost: options.host ?? '127.0.0.1', origins: [], tokenInForce: false });
  const upstreamBase = upstream.href.replace(/\/+$/, '');
  /** Where a request target was sent: the upstream's base URL and the target (kept as given when it is no path). */
  const upstreamUrl = (target: string) => (target.startsWith('/') ? `${upstreamBase}${target}` : target);
  /** Exchanges each check or request rule judged (passed or failed). */
  const applied = new Map<string, number>();
  const tally = (name: string) => applied.set(name, (applied.get(name) ?? 0) + 1);
  const faults = new FaultInjector({ random: createRandom(options.seed === undefined ? {} : { seed: options.seed }) });
  let injected = 0;
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:')
    throw new RangeError(`startProxyServer: upstream must be an http or https URL, got ${options.upstream}`);
  if (upstream.username || upstream.password) throw new RangeError('startProxyServer: upstream must not carry a user name or password');
  const contract = typeof options.spec === 'object' ? options.spec : await loadContract(options.spec ? { source: options.spec } : {});
  const validator = new ResponseValidator(contract, { allErrors: false });
  const setting = { contract, validator, checks: registry };
  const limits: ForwardLimits = { ...proxyDefaults, ...options.limits };
  const client = new UpstreamClient(upstream, { maxBodyBytes: limits.maxResponseBytes });
  const state = new TrafficState();
  const violations: Violation[] = [];
  const recent: ProxyExchangeRecord[] = [];
  let exchanges = 0;
  const sockets = new Set<Socket>();
  const recorded: CassetteEntry[] = [];
  /** Body bytes the cassette holds: bounded, the oldest entries dropped first. */
  let recordedBytes = 0;
  const bodyBytes = (entry: CassetteEntry) => (entry.request.body?.length ?? 0) + (entry.response?.body.length ?? 0);
  /** Keeps an exchange for the cassette; the entry is built only when recording. */
  const record = (entryOf: () => CassetteEntry) => {
    if (!options.record) return;
    const entry = entryOf();
    const cut = (text: string | undefined) =>
      text === undefined || text.length <= maxRecordedBody
        ? text
        : `${text.slice(0, maxRecordedBody)}… (cut at ${maxRecordedBody} characters)`;
    const requestBody = cut(entry.request.body);
    const kept: CassetteEntry = {
      ...entry,
      request: { ...entry.request, ...(requestBody === undefined ? {} : { body: requestBody }) },
      ...(entry.response ? { response: { ...entry.response, body: cut(entry.response.body)! } } : {}),
    };
    recorded.push(kept);
    recordedBytes += bodyBytes(kept);
    while (recorded.length > maxRecorded || recordedBytes > maxRecordedBytes) recordedBytes -= bodyBytes(recorded.shift()!);
  };

  const keep = (record: ProxyExchangeRecord, found: readonly Violation[]) => {
    for (const violation of found) if (violations.length < maxViolations) violations.push(violation);
    recent.push(record);
    if (recent.length > maxRecent) recent.shift();
  };

  const report = (): ProxyReport => ({
    tool: 'evidence-harness proxy',
    upstream: upstream.href,
    spec: contract.source,
    exchanges,
    injected,
    violations: [...violations],
    recent: [...recent],
  });

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const started = performance.now();
    const id = ++exchanges;
    const method = incoming.method ?? 'GET';
    const target = incoming.url ?? '/';
    const path = target.split('?')[0] ?? '/';
    if (path === '/__proxy/report' && method === 'GET') {
      exchanges -= 1;
      // The report holds the upstream's answers: only this machine may read it, as the mock's control API.
      const verdict = reportGuard.check({ host: incoming.headers.host, origin: incoming.headers.origin });
      if (!verdict.allowed) {
        const refused = verdict.answer;
        outgoing
          .writeHead(refused.status, { ...refused.headers, 'content-length': Buffer.byteLength(refused.body ?? '') })
          .end(refused.body ?? undefined);
        return;
      }
      const body = JSON.stringify(report(), null, 2);
      outgoing.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      return;
    }
    const authorization = incoming.headers.authorization;
    // The mock's own caller identity (A-10), so a caller means the same thing in mock and proxy.
    // Anonymous callers (no Authorization) skip the hash and its await.
    const caller = authorization
      ? await callerFingerprint(Array.isArray(authorization) ? authorization.join(', ') : authorization)
      : anonymousCaller;
    const hasBody = method !== 'GET' && method !== 'HEAD';

    if (scenario) {
      const matched = matchOperation(contract.operations, { method, path });
      const forced = matched ? await faults.decide({ scenario, operationId: matched.operation.operationId as OperationId }) : undefined;
      const delay = (forced?.latencyMs ?? 0) + scenario.latencyMs;
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      if (forced && matched) {
        injected += 1;
        // The client's body is not forwarded: read and drop it, so the connection stays usable.
        incoming.resume();
        const answer = errorAnswer(forced.error);
        outgoing
          .writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body ?? '') })
          .end(answer.body ?? undefined);
        const note = `injected by scenario '${scenario.name}'`;
        keep(
          {
            id,
            method,
            path,
            operationId: matched.operation.operationId,
            status: answer.status,
            violations: [],
            injected: scenario.name,
            durationMs: performance.now() - started,
          },
          [],
        );
        record(() => ({
          startedAt: Date.now() - (performance.now() - started),
          durationMs: performance.now() - started,
          request: { method, url: upstreamUrl(target), headers: incoming.headers },
          response: { status: answer.status, headers: answer.headers, body: answer.body ?? '' },
          comment: `${note}; not sent upstream`,
        }));
        options.log?.(logLine({ method, path, status: answer.status, found: [], note, ms: performance.now() - started }));
        return;
      }
    }

    // With --errors the request is read whole first, so that a violating one never reaches the upstream.
    let buffered: { body: Buffer; bytes: number } | undefined;
    if (options.errors && hasBody) {
      buffered = await readBody(incoming, limits.maxCapturedRequestBytes);
      // Only part of it was kept: forwarding that part would leave the upstream waiting for the rest.
      if (buffered.bytes > buffered.body.length) {
        const body = errorBody(
          'body_too_large',
          `The request body is larger than ${limits.maxCapturedRequestBytes - 1} bytes, more than any operation of the contract takes; it was not sent to the upstream (--errors).`,
        );
        outgoing.writeHead(413, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
        keep({ id, method, path, status: 413, violations: [], blocked: 'request', durationMs: performance.now() - started }, []);
        options.log?.(
          logLine({ method, path, status: 413, found: [], note: 'body too large: not sent upstream', ms: performance.now() - started }),
        );
        return;
      }
    }
    // A request without a body is judged before forwarding too, so --errors blocks it as well.
    if (options.errors && !hasBody) buffered = { body: Buffer.alloc(0), bytes: 0 };
    const judgeOf = (body: Buffer, bytes: number) =>
      judgeRequest({
        request: { method, path, headers: incoming.headers, body, bodyCut: bytes > body.length },
        operations: contract.operations,
        validator,
      });
    if (buffered) {
      const early = judgeOf(buffered.body, buffered.bytes);
      if (early.violations.length > 0) {
        const found = early.violations.map((violation) => requestViolation(violation, id, early.operation?.operationId));
        const message = `The request breaks the contract (${found.map((violation) => violation.check).join(', ')}): ${found[0]!.message}. It was not sent to the upstream (--errors).`;
        const body = errorBody('invalid_request', message);
        outgoing
          .writeHead(400, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'contract-violations': found.map((violation) => violation.check).join(', '),
          })
          .end(body);
        keep(
          {
            id,
            method,
            path,
            ...operationIdOf(early.operation),
            status: 400,
            violations: found.map((v) => v.check),
            blocked: 'request',
            durationMs: performance.now() - started,
          },
          found,
        );
        record(() => ({
          startedAt: Date.now() - (performance.now() - started),
          durationMs: performance.now() - started,
          request: { method, url: upstreamUrl(target), headers: incoming.headers, body: buffered.body.toString('utf8') },
          response: { status: 400, headers: { 'content-type': 'application/json' }, body },
          comment: `answered by the proxy (--errors), not sent upstream: ${found.map((violation) => violation.check).join(', ')}`,
        }));
        options.log?.(logLine({ method, path, status: 400, found, note: 'blocked: not sent upstream', ms: performance.now() - started }));
        return;
      }
    }

    const outcome = await forward({
      incoming,
      upstream,
      limits,
      client,
      // A client that leaves before its answer ends the upstream request too.
      onClientLeft: (leave) =>
        outgoing.once('close', () => {
          if (!outgoing.writableEnded) leave();
        }),
      ...(buffered && hasBody ? { bufferedBody: buffered.body } : {}),
    });
    const judged = judgeOf(outcome.request.body, outcome.request.bytes);
    // Every request is judged by every request rule that applies to it.
    tally('request_operation_known');
    if (judged.operation) for (const rule of judged.operation.requestBody ? rulesWithBody : rulesWithoutBody) tally(rule);
    const operation = judged.operation;
    const found: Violation[] = judged.violations.map((violation) => requestViolation(violation, id, operation?.operationId));

    if (outcome.kind === 'failed') {
      if (outcome.cause === 'client-left') return;
      const status = outcome.cause === 'timeout' ? 504 : 502;
      const body = errorBody(
        outcome.cause === 'timeout' ? 'service_unavailable' : 'internal_error',
        `evidence-harness proxy: ${outcome.reason}.`,
      );
      if (!outgoing.headersSent)
        outgoing.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      keep({ id, method, path, ...operationIdOf(operation), status, violations: [], durationMs: outcome.durationMs }, found);
      record(() => ({
        startedAt: Date.now() - outcome.durationMs,
        durationMs: outcome.durationMs,
        request: { method, url: upstreamUrl(target), headers: incoming.headers, body: outcome.request.body.toString('utf8') },
        comment: outcome.reason,
      }));
      options.log?.(logLine({ method, path, status, found, note: outcome.reason, ms: outcome.durationMs }));
      return;
    }

    const response = toReceived(outcome, limits.maxResponseBytes);
    const requestText = outcome.request.body.toString('utf8');
    const intent = intentOf({ judged, state, caller, incoming, operationId: operation?.operationId, path, requestText });
    const exchange: Exchange = {
      id,
      ...(operation ? { operationId: operation.operationId } : {}),
      caller: 1,
      intent: intent.intent,
      request: { method, url: upstreamUrl(target), headers: {}, body: requestText },
      response,
      notes: [],
      // A 429 says nothing about the input; the data checks leave it unjudged, as in the runner.
      rateLimited: response.status === 429,
      durationMs: outcome.durationMs,
    };
    // Contract checks judge contract operations; routes outside the contract are the request side's
    // finding. A HEAD answer has no body for them to judge.
    if (operation && method !== 'HEAD') {
      for (const { check, verdict } of verdictsOn(exchange, setting)) {
        if (verdict.outcome === 'skip') continue;
        tally(check.name);
        if (verdict.outcome !== 'fail') continue;
        found.push({
          check: check.name,
          side: 'response',
          severity: check.severity,
          operationId: operation.operationId,
          message: `${verdict.title}: expected ${verdict.expected}`,
          exchange: id,
        });
      }
    }
    intent.remember(response);

    const responseViolations = found.filter((violation) => violation.side === 'response' && violation.severity === 'required');
    const names = [...new Set(found.map((violation) => violation.check))];
    let status = response.status;
    if (options.errors && responseViolations.length > 0) {
      status = 502;
      const body = errorBody(
        'internal_error',
        `The upstream's answer breaks the contract (${responseViolations.map((violation) => violation.check).join(', ')}): ${responseViolations[0]!.message}. Its answer is kept in the proxy's report (--errors).`,
      );
      outgoing
        .writeHead(502, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'contract-violations': names.join(', '),
        })
        .end(body);
    } else {
      const headers = answerHeadersForClient(outcome.answer, { method });
      if (names.length > 0) headers.push(['Contract-Violations', names.join(', ')]);
      try {
        outgoing.writeHead(response.status, headers).end(method === 'HEAD' ? undefined : outcome.answer.body);
      } catch (error) {
        // An answer node will not write (the client parser refuses what node refuses; this is the
        // last guard): the client gets the contract's error, and the exchange is still recorded below.
        status = 502;
        if (!outgoing.headersSent) {
          const body = errorBody('internal_error', `evidence-harness proxy: the upstream's answer cannot be passed on (${String(error)}).`);
          outgoing.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
        } else outgoing.destroy();
      }
    }
    keep(
      {
        id,
        method,
        path,
        ...operationIdOf(operation),
        upstreamStatus: response.status,
        status,
        // A short answer as it is; a longer one, a copy of its start (a slice would keep the whole answer alive).
        upstreamBody: scrubCredentials(
          response.bodyText.length <= 4096 ? response.bodyText : Buffer.from(response.bodyText.slice(0, 4096)).toString('utf8'),
          incoming.headers,
        ),
        violations: names,
        ...(status === 502 && response.status !== 502 ? { blocked: 'response' as const } : {}),
        durationMs: performance.now() - started,
      },
      found,
    );
    record(() => ({
      startedAt: Date.now() - outcome.durationMs,
      durationMs: outcome.durationMs,
      request: { method, url: upstreamUrl(target), headers: incoming.headers, body: outcome.request.body.toString('utf8') },
      response: { status: response.status, headers: outcome.answer.headers, body: response.bodyText },
      ...(names.length > 0 ? { comment: `Contract-Violations: ${names.join(', ')}` } : {}),
    }));
    options.log?.(logLine({ method, path, status, found, ms: performance.now() - started }));
  }

  // The mock's limits against slow clients (src/server/mock-server.ts): Node's defaults would let
  // one hold a connection for minutes, and check them only every 30 s.
  const server = http.createServer(
    {
      requireHostHeader: false,
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      keepAliveTimeout: 5_000,
      connectionsCheckingInterval: 1_000,
    },
    (incoming, outgoing) => {
      const started = performance.now();
      handle(incoming, outgoing).catch((error: unknown) => {
        const reason = `evidence-harness proxy failed: ${String((error as Error)?.message ?? error).slice(0, 300)}`;
        // The exchange is logged even on this path (the ones above record it in the report and HAR as well).
        options.log?.(
          logLine({
            method: incoming.method ?? '',
            path: (incoming.url ?? '').split('?')[0]!,
            status: outgoing.headersSent ? outgoing.statusCode : 500,
            found: [],
            note: reason,
            ms: performance.now() - started,
          }),
        );
        if (outgoing.headersSent) return outgoing.destroy();
        const body = errorBody('internal_error', reason);
        outgoing.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      });
    },
  );
  // Node answers malformed requests and timeouts with a bare status line; answer with an Error body, as the mock does.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return socket.destroy();
    socket.end(rawErrorResponse(clientErrorAnswer(error)));
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4010, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    report,
    conformanceReport: () => asConformanceReport({ report: report(), applied, startedAt }),
    cassette: () => buildHar({ creator: { name: 'evidence-harness proxy', version: packageVersion() }, entries: recorded }),
    close: ({ graceMs = 5000 } = {}) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          client.destroy();
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

function operationIdOf(operation: { operationId: string } | undefined): { operationId?: string } {
  return operation ? { operationId: operation.operationId } : {};
}

function requestViolation(violation: RequestViolation, exchange: number, operationId: string | undefined): Violation {
  return {
    check: violation.check,
    side: 'request',
    severity: 'required',
    ...(operationId ? { operationId } : {}),
    message: violation.message,
    exchange,
  };
}

/** The intent the runner would have sent this request with, from the traffic seen so far, and how to remember its answer. */
function intentOf(options: {
  judged: ReturnType<typeof judgeRequest>;
  state: TrafficState;
  caller: string;
  incoming: IncomingMessage;
  operationId: string | undefined;
  path: string;
  /** The request body's text, the one `judged.json` was parsed from. */
  requestText: string;
}): { intent: Intent; remember: (response: ReceivedResponse) => void } {
  const { judged, state, caller } = options;
  const nothing = () => undefined;
  if (judged.violations.length > 0)
    return {
      intent: { kind: 'observed-invalid', description: judged.violations.map((violation) => violation.check).join(', ') },
      remember: nothing,
    };
  if (options.operationId === 'createEvaluation') {
    const header = options.incoming.headers['idempotency-key'];
    const key = Array.isArray(header) ? header.join(', ') : (header ?? '');
    const { intent, body } = state.createIntent({ caller, key, body: judged.json, text: options.requestText });
    return {
      intent,
      remember: (response) => state.createAnswered({ caller, key, body, intent, status: response.status, job: response.json }),
    };
  }
  if (options.operationId === 'getJob') {
    const jobId = decodeURIComponent(options.path.split('/').pop() ?? '');
    return {
      intent: state.readIntent({ caller, jobId }),
      remember: (response) => state.readAnswered({ jobId, status: response.status, job: response.json }),
    };
  }
  return {
    intent: { kind: 'positive', source: 'observed', description: `${options.operationId ?? 'request'} through the proxy` },
    remember: nothing,
  };
}

function logLine(options: {
  method: string;
  path: string;
  status: number;
  found: readonly Violation[];
  note?: string;
  ms: number;
}): string {
  const time = new Date().toISOString().slice(11, 23);
  const path = options.path.length > 200 ? `${options.path.slice(0, 200)}…` : options.path;
  const violations =
    options.found.length === 0
      ? 'ok'
      : options.found.map((violation) => `${violation.side === 'request' ? 'request' : 'response'}:${violation.check}`).join(' ');
  return `${time} ${options.method} ${path} ${options.status} ${options.ms.toFixed(1)}ms ${violations}${options.note ? ` (${options.note})` : ''}`;
}
