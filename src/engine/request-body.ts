/**
 * @module engine/request-body
 * Stage 2a: reads a JSON request body safely. The media type is checked first, the size limit
 * is enforced while reading (an oversized body is never buffered whole), and only a JSON
 * object gets through. Each refusal is an EngineError whose status the operation chooses.
 */
import type { ErrorCode } from '../contract/index.js';
import type { EngineError } from './responses.js';

export interface BodyLimit {
  readonly bytes: number;
  /** The status for a body over the limit: 413 on createEvaluation, 400 on verifyReport. */
  readonly status: number;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Discards a body the engine will not read. Not awaited: under MSW the request body is a
 * stream whose cancel() may only settle when the interceptor finishes, after our answer.
 */
export function discardBody(request: Request): void {
  if (request.body && !request.bodyUsed && !request.body.locked) request.body.cancel().catch(() => undefined);
}

function refusal(status: number, code: ErrorCode, message: string): EngineError {
  return { status, code, message };
}

export function isJsonMediaType(contentType: string | null): boolean {
  const essence = contentType?.split(';')[0]?.trim().toLowerCase();
  return essence === 'application/json';
}

async function readLimited(request: Request, limit: number): Promise<Uint8Array | 'too_large' | 'unreadable'> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    discardBody(request);
    return 'too_large';
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      // The body stream failed: the client went away mid-body, or the adapter gave up on it.
      return 'unreadable';
    }
    const { done, value } = chunk;
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      // Not awaited, as in discardBody.
      reader.cancel().catch(() => undefined);
      return 'too_large';
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The parsed body as a plain JSON object, or the refusal to answer with. */
export async function readJsonObject(request: Request, limit: BodyLimit): Promise<Record<string, unknown> | EngineError> {
  if (!isJsonMediaType(request.headers.get('content-type'))) {
    discardBody(request);
    const received = request.headers.get('content-type');
    return refusal(
      415,
      'unsupported_media_type',
      `The request body must be application/json; Content-Type was ${received ? `'${received.slice(0, 100)}'` : 'missing'}.`,
    );
  }
  const bytes = await readLimited(request, limit.bytes);
  if (bytes === 'too_large') {
    return refusal(limit.status, 'body_too_large', `The request body is larger than the limit of ${limit.bytes} bytes.`);
  }
  if (bytes === 'unreadable') return refusal(400, 'invalid_body', 'The request body ended before it was complete.');
  if (bytes.byteLength === 0) return refusal(400, 'invalid_body', 'The request body is empty; a JSON object is required.');
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return refusal(400, 'invalid_json', 'The request body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    // JSON.parse defines "__proto__" as an own property, never as the prototype; the
    // strict schemas then reject it as an unknown property.
    value = JSON.parse(text);
  } catch (error) {
    return refusal(400, 'invalid_json', `The request body is not well-formed JSON: ${(error as Error).message.slice(0, 200)}.`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return refusal(400, 'invalid_body', `The request body must be a JSON object, not ${kind}.`);
  }
  return value as Record<string, unknown>;
}
