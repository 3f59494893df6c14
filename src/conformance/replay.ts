/**
 * @module conformance/replay
 * `evidence-harness conformance replay REPORT.json`: sends a recorded failure's request again
 * and judges the new answer with the same check and the same intent, so "still fails" and "no
 * longer fails" come from the check itself, not from comparing answers. A request that builds on
 * a job created earlier in the recorded run (a replay, a poll, a stateful sequence) cannot be
 * sent alone and is said to be so; `--rerun-failed REPORT.json` reruns those checks instead.
 */
import { randomBytes } from 'node:crypto';
import { documentLimits } from '../contract/document-budget.js';
import { DocumentFileError, readDocumentFile } from '../documents/index.js';
import type { ContractDocument } from '../openapi/document.js';
import { ResponseValidator } from '../openapi/response-validator.js';
import { checks } from './checks/registry.js';
import type { Exchange, Intent } from './exchange.js';
import { describeResponse } from './exchange.js';
import type { Failure, ReplayableRequest } from './failures.js';
import type { TlsOptions } from './http/bounded-client.js';
import { defaultMaxResponseBytes, type FetchFunction, Transport } from './http/transport.js';
import { contextFor, describeIntent } from './judge.js';
import { type ConformanceReport, reportedFailures } from './report/report.js';

/** The intents whose request stands alone: none reads a job or a key an earlier request made. */
const standalone = new Set<Intent['kind']>([
  'preflight',
  'negative',
  'missing-header',
  'malformed-json',
  'media-type',
  'unknown-job',
  'verification-example',
  'oversized-body',
  'undeclared-method',
  'undeclared-path',
]);

/**
 * The largest request body a failure keeps in the report for replay; a longer one (an
 * oversized-body probe's 2 MiB) is read from the body file its curl line uses, so that a report
 * stays small whatever was sent.
 */
export const replayBodyLimit = 64 * 1024;

/** Whether an exchange's request can be sent again on its own, judged the same way. */
export function isStandalone(intent: Intent): boolean {
  if (standalone.has(intent.kind)) return true;
  if (intent.kind === 'positive') return intent.source !== 'observed';
  return intent.kind === 'create' && intent.distinctFrom === undefined;
}

/** The failing request as a report keeps it: path under the base URL, no credential header. */
export function replayableRequest(options: {
  exchange: Exchange;
  baseUrl: string;
  credentialHeaders: readonly string[];
  /** The file a long body was written to (for its curl line), if it was. */
  bodyFile?: string | undefined;
}): ReplayableRequest | undefined {
  const { exchange } = options;
  if (!isStandalone(exchange.intent)) return undefined;
  if (!exchange.request.url.startsWith(options.baseUrl)) return undefined;
  const long = (exchange.request.body?.length ?? 0) > replayBodyLimit;
  if (long && options.bodyFile === undefined) return undefined;
  const secret = new Set(options.credentialHeaders.map((name) => name.toLowerCase()));
  return {
    caller: exchange.caller,
    method: exchange.request.method,
    path: exchange.request.url.slice(options.baseUrl.length),
    headers: Object.fromEntries(Object.entries(exchange.request.headers).filter(([name]) => !secret.has(name.toLowerCase()))),
    ...(exchange.request.body === undefined ? {} : long ? { bodyFile: options.bodyFile! } : { body: exchange.request.body }),
    intent: exchange.intent,
  };
}

export type ReplayOutcome = 'still-fails' | 'no-longer-fails' | 'cannot-tell' | 'not-replayable';

export interface ReplayResult {
  /** 1-based, as the summary numbers the failures. */
  readonly index: number;
  readonly failure: Failure;
  readonly outcome: ReplayOutcome;
  /** What the new answer was, or why it could not be judged or sent. */
  readonly detail: string;
  /** The new failure's title, when it still fails. */
  readonly title?: string;
}

/** The failures of a report, numbered as its summary numbers them. */
export function failuresOf(report: Pick<ConformanceReport, 'checks'>): Failure[] {
  return reportedFailures(report);
}

/**
 * A fresh Idempotency-Key for a key the runner made (eh- and 32 hex digits), so the replay
 * creates again instead of replaying the recorded run's job; a key that is itself the broken
 * input (too long, a near miss) is sent as it was.
 */
function freshKeys(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) =>
      name.toLowerCase() === 'idempotency-key' && /^eh-[0-9a-f]{32}$/.test(value)
        ? [name, `eh-${randomBytes(16).toString('hex')}`]
        : [name, value],
    ),
  );
}

export async function replayFailures(options: {
  readonly report: ConformanceReport;
  readonly contract: ContractDocument;
  readonly baseUrl: string;
  /** 1-based failure numbers; default: all. */
  readonly failures?: readonly number[];
  readonly headers?: Readonly<Record<string, string>>;
  readonly secondCallerHeaders?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly maxResponseBytes?: number;
  readonly scrub?: (text: string) => string;
  readonly fetch?: FetchFunction;
  readonly tls?: TlsOptions;
}): Promise<ReplayResult[]> {
  const all = failuresOf(options.report);
  const chosen = options.failures ?? all.map((_, index) => index + 1);
  const validator = new ResponseValidator(options.contract, { allErrors: false });
  const transport = new Transport({
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxResponseBytes: options.maxResponseBytes ?? defaultMaxResponseBytes,
    ...(options.scrub ? { scrub: options.scrub } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.tls ? { tls: options.tls } : {}),
  });
  const results: ReplayResult[] = [];
  try {
    for (const index of chosen) {
      const failure = all[index - 1];
      if (!failure) throw new RangeError(`the report has ${all.length} failure(s); there is no failure ${index}`);
      const check = checks.find((candidate) => candidate.name === failure.check);
      if (!failure.replay || !check) {
        results.push({
          index,
          failure,
          outcome: 'not-replayable',
          detail: failure.check.startsWith('pact_')
            ? "a pact interaction's failure: its provider state is set up again only by rerunning the pact (--pact FILE)"
            : !check
              ? `this version has no check named ${failure.check}`
              : 'its request builds on a job or key made earlier in the recorded run (or the report predates replay); rerun the check with --rerun-failed',
        });
        continue;
      }
      const replay = failure.replay;
      let body = replay.body;
      if (replay.bodyFile !== undefined) {
        // The path comes from the report, which may not be this runner's: read as any file a user
        // names (src/documents: a regular file, bounded, never a blocking open).
        try {
          body = (await readDocumentFile({ path: replay.bodyFile, maxBytes: documentLimits.maxBytes })).text;
        } catch (error) {
          if (!(error instanceof DocumentFileError)) throw error;
          results.push({
            index,
            failure,
            outcome: 'not-replayable',
            detail: `its body was written to ${replay.bodyFile}, which cannot be read now (${error.message})`,
          });
          continue;
        }
      }
      const caller = replay.caller === 2 ? (options.secondCallerHeaders ?? {}) : (options.headers ?? {});
      const sent = await transport.send({
        method: replay.method,
        path: replay.path,
        headers: { ...caller, ...freshKeys(replay.headers) },
        ...(body === undefined ? {} : { body }),
      });
      const operation = options.contract.operations.find((candidate) => candidate.operationId === failure.operation);
      const exchange: Exchange = {
        id: failure.exchange,
        ...(operation ? { operationId: operation.operationId } : {}),
        caller: replay.caller,
        intent: replay.intent as Intent,
        request: sent.request,
        ...(sent.response ? { response: sent.response } : {}),
        ...(sent.transportError ? { transportError: sent.transportError } : {}),
        notes: sent.notes,
        rateLimited: sent.rateLimited,
        durationMs: sent.durationMs,
      };
      let verdict: ReturnType<typeof check.judge>;
      try {
        verdict = check.judge(exchange, contextFor(exchange, { contract: options.contract, validator }));
      } catch (error) {
        verdict = { outcome: 'skip', reason: `the check could not judge the answer (${(error as Error).message})` };
      }
      const received = describeResponse(exchange);
      if (verdict.outcome === 'fail')
        results.push({
          index,
          failure,
          outcome: 'still-fails',
          title: verdict.title,
          detail: `${verdict.received}; expected ${verdict.expected}`,
        });
      else if (verdict.outcome === 'pass') results.push({ index, failure, outcome: 'no-longer-fails', detail: received });
      else
        results.push({
          index,
          failure,
          outcome: 'cannot-tell',
          detail: `${verdict.reason ?? `${check.name} does not judge this answer`} (${describeIntent(exchange.intent)}; got ${received})`,
        });
    }
  } finally {
    transport.close();
  }
  return results;
}
