/**
 * @module proxy/proxy-exchange
 * One exchange through the proxy, as a chain of small steps that each may end it: the request
 * target (targets.ts), a scenario's injected fault, the --errors refusals, the upstream's answer
 * judged by the runner's checks. However it ends, it ends in `finish`, once: the proxy's own
 * answer (an Error body from the engine's one builder) is written there, and the exchange is
 * kept for the report, recorded in the cassette and logged the same way on every path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Exchange, ReceivedResponse } from '../conformance/exchange.js';
import { toReceived as toReceivedAnswer } from '../conformance/http/transport.js';
import { verdictsOn } from '../conformance/judge.js';
import type { CassetteEntry } from '../conformance/report/har.js';
import type { Scrubber } from '../conformance/secrets.js';
import type { EngineAnswer } from '../engine/call.js';
import { anonymousCaller, callerFingerprint } from '../engine/caller.js';
import { type EngineError, errorAnswer } from '../engine/responses.js';
import type { OperationId } from '../engine/router.js';
import { readCapped } from '../http/capped-buffer.js';
import type { OutboundClient } from '../http/outbound-client.js';
import { answerHeadersForClient, type ForwardOutcome, forward } from './forward.js';
import { watchedExchange } from './profile-watch.js';
import type { ProxyContext } from './proxy-context.js';
import type { Violation } from './proxy-types.js';
import { judgeRequest, matchOperation, type RequestViolation } from './request-rules.js';
import { judgeTarget } from './targets.js';
import { trafficIntent } from './traffic-intent.js';

/** The request rules that judge a request of an operation, besides request_operation_known. */
const rulesWithoutBody = ['request_parameters'] as const;
const rulesWithBody = ['request_parameters', 'request_media_type', 'request_json_valid', 'request_body_schema'] as const;

/** How an exchange ended: what the client got, what is kept, and why. */
interface Exit {
  /** The proxy's own answer, when the upstream's is not passed on (not yet written). */
  readonly answer?: EngineAnswer;
  /** Extra headers on the proxy's own answer. */
  readonly extraHeaders?: Record<string, string>;
  /** The status the client got (the upstream's, when passed on). */
  readonly status: number;
  readonly operationId?: string;
  readonly found?: readonly Violation[];
  /** The profile entries the upstream's answer drifted from (`--profile`, A-68). */
  readonly drift?: readonly string[];
  readonly blocked?: 'request' | 'response';
  readonly injected?: string;
  /** For the log line and the cassette's comment. */
  readonly note?: string;
  readonly upstream?: { readonly status: number; readonly headers: Record<string, string>; readonly bodyText: string };
  readonly requestBody?: string;
  /** The client left: nothing is answered or kept. */
  readonly silent?: boolean;
}

export interface ExchangeStart {
  readonly id: number;
  readonly started: number;
  readonly method: string;
  /** The path as the client sent it (origin-form after targets.ts). */
  readonly path: string;
  readonly target: string;
}

export async function handleExchange(context: ProxyContext, incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
  const method = incoming.method ?? 'GET';
  const start: { -readonly [K in keyof ExchangeStart]: ExchangeStart[K] } = {
    id: context.ledger.nextId(),
    started: performance.now(),
    method,
    target: '/',
    path: '(refused target)',
  };
  const scrub = (text: string) => context.scrubber.scrub(text);
  let finished = false;
  const finish = (exit: Exit) => {
    // Once: a failure inside finishExchange (a log or cassette callback) must not keep the exchange twice.
    if (finished) return;
    finished = true;
    finishExchange({ context, incoming, outgoing, start, exit, scrub });
  };
  // Watched from the start: a client that leaves during a scenario's latency has already gone by the forward.
  let clientGone = false;
  let cancelUpstream: (() => void) | undefined;
  outgoing.once('close', () => {
    if (outgoing.writableEnded) return;
    clientGone = true;
    cancelUpstream?.();
  });
  const onClientLeft = (leave: () => void) => {
    if (clientGone) leave();
    else cancelUpstream = leave;
  };
  try {
    const rawTarget = incoming.url ?? '/';
    context.scrubber.learnFromRequest({ url: rawTarget, headers: incoming.headers });
    const verdict = judgeTarget(rawTarget, context.ownAuthorities());
    if (!verdict.ok) {
      incoming.resume();
      return finish({
        answer: errorAnswer({ status: 400, code: 'invalid_request', message: verdict.message }),
        status: 400,
        blocked: 'request',
        note: 'request target refused: not sent upstream',
      });
    }
    start.target = verdict.target;
    start.path = verdict.target.split('?')[0] ?? '/';
    const injected = await injectedFault(context, start);
    if (injected) {
      // The client's body is not forwarded: read and drop it, so the connection stays usable.
      incoming.resume();
      return finish(injected);
    }
    await forwardAndJudge({ context, incoming, outgoing, start, finish, onClientLeft });
  } catch (error) {
    const reason = `evidence-harness proxy failed: ${String((error as Error)?.message ?? error).slice(0, 300)}`;
    try {
      if (!finished) finish({ answer: errorAnswer({ status: 500, code: 'internal_error', message: reason }), status: 500, note: reason });
    } finally {
      // The last guard: whatever failed, the client is not left waiting.
      if (!outgoing.writableEnded) outgoing.destroy();
    }
  }
}

async function injectedFault(context: ProxyContext, start: ExchangeStart): Promise<Exit | undefined> {
  const scenario = context.scenario;
  if (!scenario) return undefined;
  const matched = matchOperation(context.contract.operations, { method: start.method, path: start.path });
  const forced = matched ? await context.faults.decide({ scenario, operationId: matched.operation.operationId as OperationId }) : undefined;
  const delay = (forced?.latencyMs ?? 0) + scenario.latencyMs;
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  if (!forced || !matched) return undefined;
  context.ledger.noteInjected();
  const answer = errorAnswer(forced.error);
  return {
    answer,
    status: answer.status,
    operationId: matched.operation.operationId,
    injected: scenario.name,
    note: `injected by scenario '${scenario.name}'`,
  };
}

/**
 * With --errors the request is read whole before it is forwarded, so that a violating one never
 * reaches the upstream: the body read, or the exit that refuses it.
 */
async function readBeforeForwarding(options: {
  context: ProxyContext;
  incoming: IncomingMessage;
  start: ExchangeStart;
  hasBody: boolean;
  judgeOf: (body: Buffer, bytes: number) => ReturnType<typeof judgeRequest>;
}): Promise<{ body: Buffer; bytes: number } | Exit> {
  const { context, incoming, start, hasBody } = options;
  const limit = context.limits.maxCapturedRequestBytes;
  const buffered = hasBody ? await readCapped(incoming, limit) : { body: Buffer.alloc(0), bytes: 0 };
  // Only part of it was kept: forwarding that part would leave the upstream waiting for the rest.
  if (buffered.bytes > buffered.body.length) {
    const message = `The request body is larger than ${limit - 1} bytes, more than any operation of the contract takes; it was not sent to the upstream (--errors).`;
    return {
      answer: errorAnswer({ status: 413, code: 'body_too_large', message }),
      status: 413,
      blocked: 'request',
      note: 'body too large: not sent upstream',
      requestBody: buffered.body.toString('utf8'),
    };
  }
  const early = options.judgeOf(buffered.body, buffered.bytes);
  if (early.violations.length === 0) return buffered;
  const found = early.violations.map((violation) => requestViolation(violation, start.id, early.operation?.operationId));
  const names = found.map((violation) => violation.check).join(', ');
  const message = `The request breaks the contract (${names}): ${found[0]!.message}. It was not sent to the upstream (--errors).`;
  return {
    answer: errorAnswer({ status: 400, code: 'invalid_request', message }),
    extraHeaders: { 'contract-violations': names },
    status: 400,
    ...operationIdOf(early.operation),
    found,
    blocked: 'request',
    note: `blocked: not sent upstream (${names})`,
    requestBody: buffered.body.toString('utf8'),
  };
}

function isExit(value: { body: Buffer; bytes: number } | Exit): value is Exit {
  return 'status' in value;
}

async function forwardAndJudge(options: {
  context: ProxyContext;
  incoming: IncomingMessage;
  outgoing: ServerResponse;
  start: ExchangeStart;
  finish: (exit: Exit) => void;
  onClientLeft: (leave: () => void) => void;
}): Promise<void> {
  const { context, incoming, outgoing, start, finish } = options;
  const { method, path } = start;
  const limits = context.limits;
  // A body is what the headers announce, whatever the method (a GET may carry one too).
  const length = incoming.headers['content-length'];
  const hasBody = incoming.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  const judgeOf = (body: Buffer, bytes: number) =>
    judgeRequest({
      request: { method, path, headers: incoming.headers, body, bodyCut: bytes > body.length },
      operations: context.contract.operations,
      validator: context.validator,
    });
  // With --errors the request is read whole first, so that a violating one never reaches the upstream.
  const buffered = context.options.errors ? await readBeforeForwarding({ context, incoming, start, hasBody, judgeOf }) : undefined;
  if (buffered && isExit(buffered)) return finish(buffered);

  const outcome = await forward({
    incoming,
    target: start.target,
    upstream: context.upstream,
    limits,
    client: context.client,
    // A client that leaves before its answer ends the upstream request too.
    onClientLeft: options.onClientLeft,
    ...(buffered && hasBody ? { bufferedBody: buffered.body } : {}),
  });
  const judged = judgeOf(outcome.request.body, outcome.request.bytes);
  // Every request is judged by every request rule that applies to it.
  context.ledger.tally('request_operation_known');
  if (judged.operation) for (const rule of judged.operation.requestBody ? rulesWithBody : rulesWithoutBody) context.ledger.tally(rule);
  const operation = judged.operation;
  const found: Violation[] = judged.violations.map((violation) => requestViolation(violation, start.id, operation?.operationId));
  const requestText = outcome.request.body.toString('utf8');

  if (outcome.kind === 'failed') {
    if (outcome.cause === 'client-left') return finish({ status: 0, silent: true });
    const status = outcome.cause === 'timeout' ? 504 : 502;
    const error: EngineError = {
      status,
      code: outcome.cause === 'timeout' ? 'service_unavailable' : 'internal_error',
      message: `evidence-harness proxy: ${outcome.reason}.`,
    };
    return finish({
      answer: errorAnswer(error),
      status,
      ...operationIdOf(operation),
      found,
      note: outcome.reason,
      requestBody: requestText,
    });
  }

  const credentialLines = credentialHeaderLists(outcome.answer.headerPairs, context.scrubber);
  if (credentialLines) context.scrubber.learnFromAnswer({ headers: credentialLines });
  const response = await toReceived(outcome, context.client);
  // The caller is named by the profile's A-10.caller header (Authorization without a profile).
  // Anonymous callers (no such header) skip the hash and its await.
  const credential = incoming.headers[context.credentialHeader.toLowerCase()];
  const caller = credential ? await callerFingerprint(Array.isArray(credential) ? credential.join(', ') : credential) : anonymousCaller;
  const intent = trafficIntent({
    judged,
    state: context.state,
    caller,
    headers: incoming.headers,
    operationId: operation?.operationId,
    path,
    requestText,
  });
  const exchange: Exchange = {
    id: start.id,
    ...(operation ? { operationId: operation.operationId } : {}),
    caller: 1,
    intent: intent.intent,
    request: { method, url: context.upstreamUrl(start.target), headers: {}, body: requestText },
    response,
    notes: [],
    // A 429 says nothing about the input; the data checks leave it unjudged, as in the runner.
    rateLimited: response.status === 429,
    durationMs: outcome.durationMs,
  };
  // Contract checks judge contract operations; routes outside the contract are the request side's
  // finding. A HEAD answer has no body for them to judge.
  if (operation && method !== 'HEAD') {
    for (const { check, verdict } of verdictsOn(exchange, context.setting)) {
      if (verdict.outcome === 'skip') continue;
      context.ledger.tally(check.name);
      if (verdict.outcome !== 'fail') continue;
      found.push({
        check: check.name,
        side: 'response',
        severity: check.severity,
        operationId: operation.operationId,
        message: `${verdict.title}: expected ${verdict.expected}`,
        exchange: start.id,
      });
    }
  }
  const drift = watchProfile({
    context,
    exchange,
    judged,
    start,
    headers: incoming.headers,
    requestText,
    bytes: outcome.request.bytes,
  });
  intent.remember(response);
  const upstream = { status: response.status, headers: outcome.answer.headers, bodyText: response.bodyText };
  const names = [...new Set(found.map((violation) => violation.check))];
  const breaking = found.filter((violation) => violation.side === 'response' && violation.severity === 'required');
  if (context.options.errors && breaking.length > 0) {
    const message = `The upstream's answer breaks the contract (${breaking.map((violation) => violation.check).join(', ')}): ${breaking[0]!.message}. Its answer is kept in the proxy's report (--errors).`;
    return finish({
      answer: errorAnswer({ status: 502, code: 'internal_error', message }),
      // The headers speak of the upstream's answer the 502 replaces, as Contract-Violations does.
      extraHeaders: { 'contract-violations': names.join(', '), ...(drift.length > 0 ? { 'profile-drift': drift.join(', ') } : {}) },
      status: 502,
      ...operationIdOf(operation),
      found,
      drift,
      blocked: 'response',
      upstream,
      requestBody: requestText,
    });
  }
  const headers = answerHeadersForClient(outcome.answer, { method });
  if (names.length > 0) headers.push(['Contract-Violations', names.join(', ')]);
  if (drift.length > 0) headers.push(['Profile-Drift', drift.join(', ')]);
  let status = response.status;
  try {
    outgoing.writeHead(response.status, headers).end(method === 'HEAD' ? undefined : outcome.answer.body);
  } catch (error) {
    // An answer node will not write (this is the last guard): the client gets the contract's error, and the exchange is still kept.
    status = 502;
    return finish({
      answer: errorAnswer({
        status: 502,
        code: 'internal_error',
        message: `evidence-harness proxy: the upstream's answer cannot be passed on (${String(error).slice(0, 200)}).`,
      }),
      status,
      ...operationIdOf(operation),
      found,
      drift,
      upstream,
      requestBody: requestText,
    });
  }
  finish({
    status,
    ...operationIdOf(operation),
    found,
    drift,
    upstream,
    requestBody: requestText,
    ...(names.length > 0 ? { note: `Contract-Violations: ${names.join(', ')}` } : {}),
  });
}

/** The cassette's comment: the exit's note, and the entries drifted from (the log shows them as tokens). */
function commentOf(exit: Exit): { comment?: string } {
  if (exit.injected) return { comment: `${exit.note}; not sent upstream` };
  const drift = exit.drift && exit.drift.length > 0 ? `Profile-Drift: ${exit.drift.join(', ')}` : undefined;
  const note = exit.note ?? (exit.answer ? 'answered by the proxy, not sent upstream' : undefined);
  const comment = note && drift ? `${note}; ${drift}` : (note ?? drift);
  return comment === undefined ? {} : { comment };
}

/** Shows the exchange to the profile's watchers (profile-watch.ts); the entries it drifts from, none without a watcher. */
function watchProfile(options: {
  context: ProxyContext;
  exchange: Exchange;
  judged: ReturnType<typeof judgeRequest>;
  start: ExchangeStart;
  headers: IncomingMessage['headers'];
  requestText: string;
  bytes: number;
}): readonly string[] {
  const { context } = options;
  if (context.profileWatchers.length === 0) return [];
  try {
    const watched = watchedExchange({
      exchange: options.exchange,
      path: options.start.path,
      headers: options.headers,
      body: options.requestText,
      bodyBytes: options.bytes,
      judged: options.judged,
      credentialHeader: context.credentialHeader,
      isCredentialHeader: (name) => context.scrubber.isCredentialHeader(name),
      ...(context.callerScheme ? { callerScheme: context.callerScheme } : {}),
      validator: context.validator,
    });
    return [...new Set(context.profileWatchers.flatMap((watcher) => watcher.see(watched)))];
  } catch (error) {
    // The watch never costs the client its answer: the exchange goes on unwatched, and the log says so.
    const reason = String((error as Error)?.message ?? error).slice(0, 200);
    context.log?.(context.scrubber.scrub(`profile watch skipped exchange ${options.start.id}: ${reason}`));
    return [];
  }
}

/** The one end of every exchange: answers (when the proxy answers), keeps, records, logs. */
function finishExchange(options: {
  context: ProxyContext;
  incoming: IncomingMessage;
  outgoing: ServerResponse;
  start: ExchangeStart;
  exit: Exit;
  scrub: (text: string) => string;
}): void {
  const { context, incoming, outgoing, start, exit, scrub } = options;
  if (exit.answer) writeOwnAnswer(outgoing, exit.answer, exit.extraHeaders);
  if (exit.silent) return;
  const durationMs = performance.now() - start.started;
  const found = exit.found ?? [];
  const violations = [...new Set(found.map((violation) => violation.check))];
  context.ledger.keep(
    {
      id: start.id,
      method: start.method,
      path: scrub(start.path),
      ...(exit.operationId ? { operationId: exit.operationId } : {}),
      ...(exit.upstream ? { upstreamStatus: exit.upstream.status, upstreamBody: scrub(firstChars(exit.upstream.bodyText, 4096)) } : {}),
      status: exit.status,
      violations,
      ...(exit.drift && exit.drift.length > 0 ? { drift: exit.drift } : {}),
      ...(exit.blocked ? { blocked: exit.blocked } : {}),
      ...(exit.injected ? { injected: exit.injected } : {}),
      durationMs,
    },
    found.map((violation) => ({ ...violation, message: scrub(violation.message) })),
  );
  context.recordIf(
    () =>
      ({
        startedAt: Date.now() - durationMs,
        durationMs,
        request: {
          method: start.method,
          url: context.upstreamUrl(start.target),
          headers: incoming.headers,
          ...(exit.requestBody === undefined ? {} : { body: exit.requestBody }),
        },
        ...(exit.upstream
          ? { response: { status: exit.upstream.status, headers: exit.upstream.headers, body: exit.upstream.bodyText } }
          : exit.answer
            ? {
                response: {
                  status: exit.answer.status,
                  headers: { ...exit.answer.headers, ...exit.extraHeaders },
                  body: exit.answer.body ?? '',
                },
              }
            : {}),
        ...commentOf(exit),
      }) satisfies CassetteEntry,
  );
  context.log?.(
    scrub(
      logLine({ method: start.method, path: start.path, status: exit.status, found, drift: exit.drift, note: exit.note, ms: durationMs }),
    ),
  );
}

function writeOwnAnswer(outgoing: ServerResponse, answer: EngineAnswer, extra: Record<string, string> | undefined): void {
  if (outgoing.headersSent) {
    if (!outgoing.writableEnded) outgoing.destroy();
    return;
  }
  const body = answer.body ?? '';
  outgoing.writeHead(answer.status, { ...answer.headers, ...extra, 'content-length': Buffer.byteLength(body) }).end(body);
}

/**
 * The answer's credential header lines (Set-Cookie and the scrubber's credential headers) as one
 * list per lower-case name, or undefined when it has none, as most answers do.
 */
function credentialHeaderLists(pairs: readonly [string, string][], scrubber: Scrubber): Record<string, string[]> | undefined {
  let lists: Record<string, string[]> | undefined;
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase();
    if (lower !== 'set-cookie' && !scrubber.isCredentialHeader(lower)) continue;
    lists ??= Object.create(null) as Record<string, string[]>;
    const list = lists[lower];
    if (list) list.push(value);
    else lists[lower] = [value];
  }
  return lists;
}

/** A copy of the first `count` characters (a slice would keep the whole text alive). */
function firstChars(text: string, count: number): string {
  return text.length <= count ? text : Buffer.from(text.slice(0, count)).toString('utf8');
}

/**
 * The upstream's answer as the checks judge it: decoded from its Content-Encoding by the one
 * decoder (off the event loop, one budget, a few codings at most), then read as the runner reads
 * answers (the same bounds on nesting and values). The client still gets the bytes as sent; an
 * encoding the proxy does not decode is judged as a body that could not be decoded.
 */
async function toReceived(outcome: Extract<ForwardOutcome, { kind: 'answered' }>, client: OutboundClient): Promise<ReceivedResponse> {
  const { status, headers } = outcome.answer;
  const decoded = await client.decode(outcome.answer);
  if ('problem' in decoded)
    return {
      status,
      headers,
      contentType: headers['content-type'] ?? null,
      bodyText: '',
      json: undefined,
      incomplete: { reason: 'undecodable', bytes: decoded.bytes, message: `${decoded.message}; left unjudged` },
    };
  return toReceivedAnswer({ status, headers, body: decoded.body });
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

function logLine(options: {
  method: string;
  path: string;
  status: number;
  found: readonly Violation[];
  /** Drift is its own kind (A-68): `drift:ENTRY` beside the violations. */
  drift?: readonly string[] | undefined;
  note?: string | undefined;
  ms: number;
}): string {
  const time = new Date().toISOString().slice(11, 23);
  const path = options.path.length > 200 ? `${options.path.slice(0, 200)}…` : options.path;
  const tokens = [
    ...options.found.map((violation) => `${violation.side === 'request' ? 'request' : 'response'}:${violation.check}`),
    ...(options.drift ?? []).map((entry) => `drift:${entry}`),
  ];
  const violations = tokens.length === 0 ? 'ok' : tokens.join(' ');
  return `${time} ${options.method.slice(0, 20)} ${path} ${options.status} ${options.ms.toFixed(1)}ms ${violations}${options.note ? ` (${options.note})` : ''}`;
}
