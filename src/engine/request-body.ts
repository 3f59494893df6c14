/**
 * @module engine/request-body
 * Stage 2a: reads a JSON request body safely. The media type is checked first, the size limit
 * is enforced while reading (an oversized body is never buffered whole), and only a JSON
 * object gets through. Each refusal is an EngineError whose status the operation chooses.
 */
import type { ErrorCode } from '../contract/index.js';
import { essence } from '../contract/media-type.js';
import type { Situation } from '../profile/engine-profile.js';
import type { EngineCall } from './call.js';
import type { EngineError } from './responses.js';

export interface BodyLimit {
  readonly bytes: number;
  /** The status for a body over the limit: 413 on createEvaluation, 400 on verifyReport. */
  readonly status: number;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function refusal(status: number, code: ErrorCode, message: string, situation: Situation): EngineError {
  return { status, code, message, situation };
}

/** Whether a Content-Type names application/json, whatever its parameters and case. */
export function isJsonMediaType(contentType: string | null): boolean {
  return essence(contentType) === 'application/json';
}

/** The parsed body as a plain JSON object, or the refusal to answer with. */
export async function readJsonObject(call: EngineCall, limit: BodyLimit): Promise<Record<string, unknown> | EngineError> {
  const read = await readJsonBody(call, limit);
  return 'value' in read ? read.value : read;
}

/** The parsed body with its text (a profile may compare replays by their bytes, A-5), or the refusal. */
export async function readJsonBody(
  call: EngineCall,
  limit: BodyLimit,
): Promise<{ readonly value: Record<string, unknown>; readonly text: string } | EngineError> {
  const received = call.header('content-type');
  if (!isJsonMediaType(received)) {
    call.discardBody();
    return refusal(
      415,
      'unsupported_media_type',
      `The request body must be application/json; Content-Type was ${received ? `'${received.slice(0, 100)}'` : 'missing'}.`,
      'A-21.media-type',
    );
  }
  const bytes = await call.readBody(limit.bytes);
  if (bytes === 'too_large') {
    return refusal(
      limit.status,
      'body_too_large',
      `The request body is larger than the limit of ${limit.bytes} bytes.`,
      'A-13.body-too-large',
    );
  }
  if (bytes === 'unreadable') return refusal(400, 'invalid_body', 'The request body ended before it was complete.', 'A-21.not-an-object');
  if (bytes.byteLength === 0)
    return refusal(400, 'invalid_body', 'The request body is empty; a JSON object is required.', 'A-21.not-an-object');
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return refusal(400, 'invalid_json', 'The request body is not valid UTF-8.', 'A-21.malformed-json');
  }
  let value: unknown;
  try {
    // JSON.parse defines "__proto__" as an own property, never as the prototype; the
    // strict schemas then reject it as an unknown property.
    value = JSON.parse(text);
  } catch (error) {
    return refusal(
      400,
      'invalid_json',
      `The request body is not well-formed JSON: ${(error as Error).message.slice(0, 200)}.`,
      'A-21.malformed-json',
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return refusal(400, 'invalid_body', `The request body must be a JSON object, not ${kind}.`, 'A-21.not-an-object');
  }
  return { value: value as Record<string, unknown>, text };
}
