/**
 * @module conformance/profile/learning/timing
 * The learning steps of jobs over time and body limits (docs/profiles.md, "Jobs over time and
 * body limits"). `jobProgressionStep` creates one job and reads it: a few reads back to back
 * first; a job that moves with them moves by reads (no wait at all, as against the bundled
 * mock); one that does not is read at measured intervals (a third of the time since the create,
 * at least 50 ms) until it ends or --job-timeout, and the ms it stayed in each state is written
 * with its uncertainty. `bodyLimitStep` finds each operation's body limit by bisection between
 * a valid body and 16 MiB (the most the mock reads), powers of two first.
 *
 * Every request is sent unrecorded and recorded once answered, with the times it was sent and
 * answered (ms after the create was sent, on the run's clock): `--profile` judges each read on
 * them. The last exchange of a step carries what the step concluded (observe-timing.ts).
 */
import { bodyLimits } from '../../../contract/limits.js';
import type { OperationDescription } from '../../../openapi/document.js';
import type { Exchange } from '../../exchange.js';
import { fullValidValue } from '../../generators/mutations.js';
import { contractOperationIds } from '../../probes/contract-operations.js';
import { requestExamples } from '../../probes/data-probes.js';
import type { ProbeContext } from '../../probes/probe-context.js';
import { buildRequest, jsonBodySchema, parametersIn } from '../../probes/request-builder.js';
import { answersNothingOfLimit, timingQuestions } from '../observe-timing.js';
import type { LearningStep } from './steps.js';

/** Reads sent back to back before the step decides a job does not move by reads. */
const readsBackToBack = 3;
/** The shortest wait between timed reads, and the share of the time since the create each waits. */
const minIntervalMs = 50;
const intervalShare = 1 / 3;
/** Per operation: the most body probes, and the resolution at which bisection stops. */
const limitProbes = 8;
const limitResolution = 1024;
/** Powers of two below this are not tried first: no server limits its bodies to a few kB. */
const smallestPowerTried = 64 * 1024;

function operationOf(context: ProbeContext, operationId: string): OperationDescription | undefined {
  const found = context.contract.operations.find((operation) => operation.operationId === operationId);
  return found && context.includes(found) ? found : undefined;
}

function validBody(operation: OperationDescription): unknown {
  const schema = jsonBodySchema(operation);
  return requestExamples(operation)[0] ?? (schema ? fullValidValue(schema) : {});
}

/** Records `exchange`, with `extra` added to its learning detail. */
function recordWith(context: ProbeContext, exchange: Exchange, extra: Readonly<Record<string, string | number | boolean>>): void {
  const intent = exchange.intent;
  context.record(intent.kind === 'learning' ? { ...exchange, intent: { ...intent, detail: { ...intent.detail, ...extra } } } : exchange);
}

interface ReadSeen {
  readonly state: string;
  readonly sentMs: number;
  readonly answeredMs: number;
}

function jobState(exchange: Exchange | undefined): { jobId?: string; status: string } | undefined {
  const body = exchange?.response?.json as Record<string, unknown> | undefined;
  if (!exchange?.response || exchange.response.status >= 300 || !body || typeof body.status !== 'string') return undefined;
  return { ...(typeof body.jobId === 'string' ? { jobId: body.jobId } : {}), status: body.status };
}

const isFinal = (state: string) => state !== 'QUEUED' && state !== 'RUNNING';
const rounded = (ms: number) => Math.max(0, Math.round(ms / 10) * 10);

/** What the reads show: the progression, and the lines saying what was measured. */
function concluded(options: { readonly reads: readonly ReadSeen[]; readonly byReads: boolean; readonly createAnsweredMs: number }): {
  progression: Record<string, unknown>;
  measured: string;
} {
  const { reads, byReads, createAnsweredMs } = options;
  // reads[0] is the create's answer.
  const changes: { from: string; to: string; lastOld: ReadSeen; firstNew: ReadSeen; index: number }[] = [];
  for (let index = 1; index < reads.length; index += 1)
    if (reads[index]!.state !== reads[index - 1]!.state)
      changes.push({ from: reads[index - 1]!.state, to: reads[index]!.state, lastOld: reads[index - 1]!, firstNew: reads[index]!, index });
  const created = `created ${reads[0]!.state}`;
  if (byReads) {
    // In the order a job passes its states, each seen one counted (a state answered by no read counts 0).
    const counts: Record<string, number> = {};
    for (const state of ['QUEUED', 'RUNNING'])
      if (reads.some((read) => read.state === state)) counts[state] = reads.slice(1).filter((read) => read.state === state).length;
    const moves = changes.map((change) => `${change.to} at read ${change.index}`).join(', ');
    const span = Math.round(reads.at(-1)!.answeredMs);
    return {
      progression: { by: 'reads', reads: counts },
      measured: `by reads, ${created}; ${reads.length - 1} reads back to back in ${span} ms: ${moves}`,
    };
  }
  // The server made its job at some time while the create was answered: half of that is the best guess.
  const origin = createAnsweredMs / 2;
  const boundaries = [{ state: reads[0]!.state, at: 0, within: 0 }];
  for (const change of changes)
    boundaries.push({
      state: change.to,
      at: (change.lastOld.sentMs + change.firstNew.answeredMs) / 2 - origin,
      within: (change.firstNew.answeredMs - change.lastOld.sentMs) / 2,
    });
  const ms: Record<string, number> = {};
  const lines: string[] = [];
  for (let index = 0; index + 1 < boundaries.length; index += 1) {
    const { state, at, within } = boundaries[index]!;
    const next = boundaries[index + 1]!;
    if (isFinal(state)) break;
    ms[state] = rounded(next.at - at);
    lines.push(`${state} ≈ ${ms[state]} ± ${Math.round(within + next.within)} ms`);
  }
  const seen = changes.map((change) => `${change.to} first at ${Math.round(change.firstNew.answeredMs)} ms`).join(', ');
  return {
    progression: { by: 'time', ms },
    // One comment line of the file (at most 200 characters): what was read, and each state's ms with its uncertainty.
    measured: `by time, ${reads.length - 1} reads (${readsBackToBack} back to back, then a third of the time since the create apart): ${seen}; ${lines.join(', ')}`,
  };
}

/** Creates one job and reads it until it ends: by reads at once, by time at measured intervals. */
export const jobProgressionStep: LearningStep = {
  label: 'how a job moves (by reads or by time)',
  budget: 24,
  run: async (context) => {
    const create = operationOf(context, contractOperationIds.create);
    const read = operationOf(context, contractOperationIds.read);
    if (!create || !read) return;
    const now = () => context.now?.() ?? performance.now();
    const question = timingQuestions.progression;
    const started = now();
    const createRequest = buildRequest({
      operation: create,
      seed: context.seed,
      runId: context.runId,
      purpose: 'learning-progression',
      body: { value: validBody(create) },
    });
    const created = await context.send(createRequest, { kind: 'learning', question, detail: { read: 0 } }, { record: false });
    if (!created) return;
    const createAnsweredMs = now() - started;
    const first = jobState(created);
    if (!first?.jobId) {
      recordWith(context, created, {});
      context.note('learning how a job moves: the create gave no job; A-3.progression is not learnt');
      return;
    }
    const jobId = first.jobId;
    const reads: ReadSeen[] = [{ state: first.status, sentMs: 0, answeredMs: createAnsweredMs }];
    let pending: { exchange: Exchange; detail: Record<string, number> } | undefined = {
      exchange: created,
      detail: { sentMs: 0, answeredMs: round1(createAnsweredMs), createAnsweredMs: round1(createAnsweredMs) },
    };
    const flush = (extra: Readonly<Record<string, string | number | boolean>> = {}) => {
      if (pending) recordWith(context, pending.exchange, { ...pending.detail, ...extra });
      pending = undefined;
    };
    const name = parametersIn(read, 'path')[0]?.name ?? 'jobId';
    let byReads = false;
    let sent = 1;
    const deadline = context.jobTimeoutMs;
    while (sent < jobProgressionStep.budget && !isFinal(reads.at(-1)!.state)) {
      const backToBack = byReads || reads.length <= readsBackToBack;
      if (!backToBack) {
        const elapsed = now() - started;
        if (elapsed >= deadline) break;
        await context.sleep(Math.min(Math.max(minIntervalMs, elapsed * intervalShare), deadline - elapsed));
      }
      const sentMs = now() - started;
      const exchange = await context.send(
        buildRequest({ operation: read, seed: context.seed, runId: context.runId, purpose: 'read', path: { [name]: jobId } }),
        { kind: 'learning', question, detail: { read: reads.length } },
        { record: false },
      );
      if (!exchange) break;
      sent += 1;
      const answeredMs = now() - started;
      flush();
      pending = {
        exchange,
        detail: { sentMs: round1(sentMs), answeredMs: round1(answeredMs), createAnsweredMs: round1(createAnsweredMs) },
      };
      const state = jobState(exchange);
      if (!state || state.jobId !== jobId) break;
      reads.push({ state: state.status, sentMs, answeredMs });
      // A state that moved while the job was read back to back moves by reads.
      if (reads.length <= readsBackToBack + 1 && state.status !== reads.at(-2)!.state) byReads = true;
    }
    const last = reads.at(-1)!;
    if (!isFinal(last.state)) {
      flush();
      context.note(
        `learning how a job moves: the job was still ${last.state.slice(0, 20)} after ${reads.length - 1} reads; A-3.progression is not learnt (a longer --job-timeout gives it more time)`,
      );
      return;
    }
    const { progression, measured } = concluded({ reads, byReads, createAnsweredMs });
    // A job created final shows no progression (A-3.timeline says it starts there).
    if (reads.length === 1) return flush();
    flush({ progression: JSON.stringify(progression), measured });
  },
};

function round1(ms: number): number {
  return Math.round(ms * 10) / 10;
}

type LimitOperation = 'createEvaluation' | 'verifyReport';

/** The mock's own limits: tried first, so a server that keeps them costs two probes. */
const mockLimits: Readonly<Record<LimitOperation, number>> = {
  createEvaluation: bodyLimits.createEvaluationBytes,
  verifyReport: bodyLimits.verifyReportBytes,
};

/** The next size to try in (lo, hi): the mock's limit, the neighbour of a power of two just tried, a power of two, the middle. */
function nextSize(options: { lo: number; hi: number; tried: ReadonlyMap<number, boolean>; expected: number; last?: number }): number {
  const { lo, hi, tried, expected, last } = options;
  const inside = (size: number) => size > lo && size < hi && !tried.has(size);
  if (inside(expected)) return expected;
  // A power of two accepted: is it the limit? Refused: is the limit one below?
  if (last !== undefined && (last & (last - 1)) === 0) {
    const neighbour = tried.get(last) ? last + 1 : last - 1;
    if (inside(neighbour)) return neighbour;
  }
  const powers: number[] = [];
  for (let power = smallestPowerTried; power < hi; power *= 2) if (inside(power)) powers.push(power);
  if (powers.length > 0) return powers[Math.floor(powers.length / 2)]!;
  return Math.floor((lo + hi) / 2);
}

/** Bisects one operation's body limit; the last exchange is left for the caller to record. */
async function bisectLimit(
  context: ProbeContext,
  operationId: LimitOperation,
): Promise<{ limit?: number; line: string; last?: Exchange; sent: number }> {
  const operation = operationOf(context, operationId);
  if (!operation) return { line: `${operationId}: not asked (not in the run's operations)`, sent: 0 };
  const base = JSON.stringify(validBody(operation));
  const baseBytes = new TextEncoder().encode(base).length;
  let lo = baseBytes;
  let hi = bodyLimits.maxDocumentBodyBytes + 1;
  const tried = new Map<number, boolean>();
  let last: Exchange | undefined;
  let lastSize: number | undefined;
  let sent = 0;
  while (sent < limitProbes && hi - lo > limitResolution) {
    const size = nextSize({ lo, hi, tried, expected: mockLimits[operationId], ...(lastSize === undefined ? {} : { last: lastSize }) });
    // Leading whitespace keeps the body the same valid JSON value at any size.
    const request = buildRequest({
      operation,
      seed: context.seed,
      runId: context.runId,
      purpose: `learning-body-limit-${size}`,
      body: { raw: `${' '.repeat(size - baseBytes)}${base}` },
    });
    const exchange = await context.send(
      request,
      { kind: 'learning', question: timingQuestions.bodyLimit, detail: { operation: operationId, bytes: size } },
      { record: false },
    );
    if (!exchange) break;
    sent += 1;
    if (last) context.record(last);
    last = exchange;
    const status = exchange.response?.status;
    if (status !== undefined && answersNothingOfLimit(status))
      return { line: `${operationId}: not learnt: a body of ${size} bytes was answered ${status}`, last, sent };
    // No answer at all (a server that drops the connection of a body too large) is a refusal too.
    const refused = status === undefined || status >= 400;
    tried.set(size, !refused);
    if (refused) hi = size;
    else lo = size;
    lastSize = size;
  }
  const probes = [...tried.entries()].map(([size, accepted]) => `${size} ${accepted ? 'accepted' : 'refused'}`).join(', ');
  if (hi - lo > limitResolution)
    return {
      line: `${operationId}: not learnt: between ${lo} and ${hi} bytes after ${sent} probes (${probes})`,
      ...(last ? { last } : {}),
      sent,
    };
  if (lo > bodyLimits.maxDocumentBodyBytes)
    return {
      line: `${operationId}: not learnt: a body of ${lo} bytes was accepted, over the 16 MiB a profile holds (${probes})`,
      ...(last ? { last } : {}),
      sent,
    };
  const probeCount = `${sent} probe${sent === 1 ? '' : 's'}`;
  const line = tried.has(hi)
    ? `${operationId} ${lo} accepted, ${hi} refused (${hi - lo === 1 ? 'exact' : `within ${hi - lo} bytes`}, ${probeCount})`
    : `${operationId} ${lo} accepted, the most a profile holds (${probeCount})`;
  return { limit: lo, line, ...(last ? { last } : {}), sent };
}

/** Finds the body limit of createEvaluation and of verifyReport, by bisection. */
export const bodyLimitStep: LearningStep = {
  label: 'the body limit of each operation (bisection)',
  budget: 2 * limitProbes,
  run: async (context) => {
    const limits: Record<string, number> = {};
    const lines: string[] = [];
    let pending: Exchange | undefined;
    for (const operationId of ['createEvaluation', 'verifyReport'] as const) {
      const found = await bisectLimit(context, operationId);
      if (pending) context.record(pending);
      pending = found.last;
      lines.push(found.line);
      if (found.limit !== undefined) limits[operationId] = found.limit;
    }
    if (pending) recordWith(context, pending, { limits: JSON.stringify(limits), measured: lines.join('; ') });
  },
};
