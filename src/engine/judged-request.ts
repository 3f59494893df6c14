/**
 * @module engine/judged-request
 * Stage 2a under a profile that judges requests its own way (A-7.precedence, A-21's and A-16's
 * strictness switches): every problem of the request is found (its media type and charset, its
 * Idempotency-Key, its size, its JSON, its fields), and the one the profile's order puts first
 * is answered. Without such a profile request-body.ts and the operation answer, as always.
 */
import type { z } from 'zod';
import { bodyLimits } from '../contract/limits.js';
import { declaredCharset, duplicateMembers, hasNonAscii, isUtf8Charset, judgedOrder } from '../profile/engine-strictness.js';
import type { ProblemName } from '../profile/methods-vocabulary.js';
import type { ServerProfile } from '../profile/profile.js';
import type { EngineCall } from './call.js';
import { type BodyLimit, isJsonMediaType } from './request-body.js';
import type { EngineError } from './responses.js';
import { type Diagnostic, describeDiagnostics, diagnose } from './validation.js';

export interface JudgedRequestOptions {
  readonly call: EngineCall;
  readonly profile: ServerProfile;
  readonly limit: BodyLimit;
  /** 413 on createEvaluation, 400 on verifyReport (A-2). */
  readonly overMaximumStatus: number;
  readonly body: z.ZodType;
  /** The Idempotency-Key's schema, on the operation that requires one. */
  readonly key?: z.ZodType;
  /** The operation judged: its own declared order, where it has one (A-7). */
  readonly operationId: 'createEvaluation' | 'verifyReport';
}

/** The problems that need the body read to be found. */
const bodyProblems: ReadonlySet<ProblemName> = new Set([
  'body-too-large',
  'malformed-json',
  'not-an-object',
  'over-maximum',
  'invalid-request',
]);
/** The problems that need the body parsed: a profile that judges one before the size reads up to the mock's bound. */
const parsedProblems: readonly ProblemName[] = ['malformed-json', 'not-an-object', 'over-maximum', 'invalid-request'];

const decoder = new TextDecoder('utf-8', { fatal: true });

/** A refusal a strictness entry declares: its status and code, no situation (the entry is its answer already). */
function declaredRefusal(entry: { status: number; code: string }, message: string): EngineError {
  return { status: entry.status, code: entry.code as EngineError['code'], message };
}

/** The parsed body and its text, or the refusal for the problem the profile judges first. */
export async function judgeRequest(
  options: JudgedRequestOptions,
): Promise<{ readonly value: Record<string, unknown>; readonly text: string } | EngineError> {
  const { call, profile, limit } = options;
  const order = judgedOrder(profile, options.operationId);
  const found = new Map<ProblemName, EngineError>();
  const first = (): EngineError | undefined => order.map((name) => found.get(name)).find((error) => error !== undefined);
  /** The problem found that no problem still to be judged can come before. */
  const settled = (stillToJudge: ReadonlySet<ProblemName>): EngineError | undefined => {
    const best = order.findIndex((name) => found.has(name));
    if (best === -1) return undefined;
    return order.slice(0, best).some((name) => stillToJudge.has(name)) ? undefined : found.get(order[best]!);
  };

  const contentType = call.header('content-type');
  const charsetEntry = profile.entries['A-21.charset'];
  if (!isJsonMediaType(contentType))
    found.set('media-type', {
      status: 415,
      code: 'unsupported_media_type',
      message: `The request body must be application/json; Content-Type was ${contentType ? `'${contentType.slice(0, 100)}'` : 'missing'}.`,
      situation: 'A-21.media-type',
    });
  else if (charsetEntry !== 'accepted' && !isUtf8Charset(declaredCharset(contentType)))
    found.set(
      'media-type',
      declaredRefusal(
        charsetEntry,
        `The request body must be UTF-8; Content-Type declares charset ${declaredCharset(contentType)!.slice(0, 40)} (the profile in force, A-21).`,
      ),
    );

  const diagnostics: Diagnostic[] = [];
  if (options.key) {
    const key = call.header('idempotency-key');
    const nonAscii = profile.entries['A-16.non-ascii-key'];
    if (key === null || key === '')
      found.set('missing-key', {
        status: 400,
        code: 'missing_idempotency_key',
        message: `Idempotency-Key header ${key === null ? 'is required' : 'is empty'}.`,
        situation: 'A-16.missing-key',
      });
    else if (nonAscii !== 'accepted' && hasNonAscii(key))
      found.set(
        'missing-key',
        declaredRefusal(nonAscii, 'The Idempotency-Key holds a character outside ASCII (the profile in force, A-16).'),
      );
    else diagnostics.push(...diagnose({ schema: options.key, value: key, prefix: 'Idempotency-Key header' }));
  }
  const early = settled(bodyProblems);
  if (early) {
    call.discardBody();
    return early;
  }

  // A profile that judges the JSON before the size reads on to the largest body the mock reads.
  const readsOn = parsedProblems.some((name) => order.indexOf(name) < order.indexOf('body-too-large'));
  const bytes = await call.readBody(readsOn ? Math.max(limit.bytes, bodyLimits.maxDocumentBodyBytes) : limit.bytes);
  if (bytes === 'too_large' || (bytes !== 'unreadable' && bytes.byteLength > limit.bytes)) {
    found.set('body-too-large', {
      status: limit.status,
      code: 'body_too_large',
      message: `The request body is larger than the limit of ${limit.bytes} bytes.`,
      situation: 'A-13.body-too-large',
    });
    if (bytes === 'too_large') return first()!;
  }
  const notAnObject = (message: string): EngineError => ({ status: 400, code: 'invalid_body', message, situation: 'A-21.not-an-object' });
  const malformed = (message: string): EngineError => ({ status: 400, code: 'invalid_json', message, situation: 'A-21.malformed-json' });
  let parsed: { value: Record<string, unknown>; text: string } | undefined;
  if (bytes === 'unreadable') found.set('not-an-object', notAnObject('The request body ended before it was complete.'));
  else if (bytes.byteLength === 0) found.set('not-an-object', notAnObject('The request body is empty; a JSON object is required.'));
  else {
    const read = parseBody(bytes, profile);
    if ('problem' in read) found.set(read.problem, read.problem === 'malformed-json' ? malformed(read.message) : notAnObject(read.message));
    else if ('refusal' in read) found.set('malformed-json', read.refusal);
    else parsed = read;
  }
  if (parsed) diagnostics.push(...diagnose({ schema: options.body, value: parsed.value }));
  if (diagnostics.some((diagnostic) => diagnostic.overMaximum))
    found.set('over-maximum', {
      status: options.overMaximumStatus,
      code: 'limit_exceeded',
      message: describeDiagnostics(diagnostics),
      situation: 'A-2.over-maximum',
    });
  if (diagnostics.some((diagnostic) => !diagnostic.overMaximum))
    found.set('invalid-request', {
      status: 400,
      code: 'invalid_request',
      message: describeDiagnostics(diagnostics),
      situation: 'A-7.invalid-request',
    });
  return first() ?? parsed!;
}

/** The body as JSON under the profile's duplicate-members switch, or what is wrong with it. */
function parseBody(
  bytes: Uint8Array,
  profile: ServerProfile,
):
  | { value: Record<string, unknown>; text: string }
  | { problem: 'malformed-json' | 'not-an-object'; message: string }
  | { refusal: EngineError } {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { problem: 'malformed-json', message: 'The request body is not valid UTF-8.' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: 'malformed-json', message: `The request body is not well-formed JSON: ${(error as Error).message.slice(0, 200)}.` };
  }
  const duplicates = profile.entries['A-21.duplicate-members'];
  if (duplicates !== 'last-wins' && value !== null && typeof value === 'object') {
    const scan = duplicateMembers(text);
    if (scan.first !== undefined) {
      if (duplicates !== 'first-wins')
        return {
          refusal: declaredRefusal(
            duplicates,
            `The request body names the member '${scan.first.slice(0, 80)}' twice in one object (the profile in force, A-21).`,
          ),
        };
      value = JSON.parse(scan.firstWins());
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return { problem: 'not-an-object', message: `The request body must be a JSON object, not ${kind}.` };
  }
  return { value: value as Record<string, unknown>, text };
}
