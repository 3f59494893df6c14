/**
 * @module contract/error-body
 * The one builder of the contract's Error body (`{ code, message }`), each cut to the schema's
 * limits, so no answer can carry a megabyte of quoted input or a stack trace. Isomorphic: the
 * engine answers with it (`errorAnswer`), and so does the Node server edge for what it refuses
 * before the engine sees a request (src/http/early-answers.ts), without importing the engine.
 */
import { limits } from './limits.js';

/** Cuts `text` to at most `max` code points, marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  // .length counts UTF-16 units, never fewer than code points: short texts need no split.
  if (text.length <= max) return text;
  // Only the head is split into code points (a message may quote a megabyte of input).
  const points = Array.from(text.slice(0, max * 2));
  if (points.length <= max && text.length <= max * 2) return text;
  return `${points.slice(0, max - 1).join('')}…`;
}

/** What an Error answer says: its status, a code and a message for the developer. */
export interface ErrorAnswerParts {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

/** The Error body's JSON text: code and message cut to the contract's limits. */
export function errorBodyText(error: Pick<ErrorAnswerParts, 'code' | 'message'>): string {
  return JSON.stringify({
    code: truncate(error.code, limits.errorCodeLength.max),
    message: truncate(error.message, limits.errorMessageLength.max),
  });
}
