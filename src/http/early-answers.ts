/**
 * @module http/early-answers
 * The answers the server gives before the engine sees a request — malformed HTTP, headers over
 * Node's limit, timeouts, CONNECT, an unsupported Expect, a missing or repeated Host — each
 * the JSON Error body of docs/assumptions.md A-20, built by the contract's one Error body builder
 * (src/contract/error-body.ts, which caps the message at the schema's limit; the engine's answers
 * use it too), never Node's bare status line.
 */
import type { IncomingMessage } from 'node:http';
import { type ErrorAnswerParts, errorBodyText } from '../contract/error-body.js';

/** An Error answer with the reason phrase of its status line. */
export type EarlyError = ErrorAnswerParts & { readonly reason: string };

/**
 * An Error answer written as raw HTTP on a socket Node has taken out of the request cycle
 * (CONNECT, malformed HTTP, timeouts), connection closed.
 */
export function rawErrorResponse(error: EarlyError): string {
  const body = errorBodyText(error);
  return `HTTP/1.1 ${error.status} ${error.reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/** The answer to a `clientError`: what Node would have answered bare, as an Error body. */
export function clientErrorAnswer(error: NodeJS.ErrnoException): EarlyError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', code: 'request_timeout', message: 'The request was not received in time.' };
    case 'HPE_HEADER_OVERFLOW':
      // No code of the contract's closed set names headers; invalid_request is its code for a
      // header that breaks the rules, and 431 says which rule.
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        code: 'invalid_request',
        message: 'The request line and headers are larger than the server accepts (16 KiB in all).',
      };
    default:
      return { status: 400, reason: 'Bad Request', code: 'invalid_request', message: 'The request is not valid HTTP.' };
  }
}

/** The answer to CONNECT: neither the mock nor the reverse proxy tunnels. */
export function connectRefused(server: 'mock' | 'proxy'): EarlyError {
  return {
    status: 400,
    reason: 'Bad Request',
    code: 'invalid_request',
    message:
      server === 'mock'
        ? 'The mock is not a proxy: CONNECT is not supported.'
        : 'evidence-harness proxy is a reverse proxy: CONNECT is not supported.',
  };
}

/** Node answers an Expect other than 100-continue with a bare 417; this is its Error body. */
export const expectationRefused: ErrorAnswerParts = {
  status: 417,
  code: 'invalid_request',
  message: "The mock supports no Expect header but 'Expect: 100-continue'.",
};

/**
 * The Host rule of HTTP/1.1 (RFC 9112 §3.2): a request must carry exactly one Host header
 * (HTTP/1.0 may omit it). The server asks Node not to enforce it (`requireHostHeader: false`),
 * so that the refusal is an Error body like every other answer.
 */
export function hostHeaderProblem(incoming: IncomingMessage): ErrorAnswerParts | undefined {
  let count = 0;
  const raw = incoming.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!;
    if (name.length === 4 && name.toLowerCase() === 'host') count += 1;
  }
  if (count > 1) return { status: 400, code: 'invalid_request', message: 'The request has more than one Host header.' };
  if (count === 0 && incoming.httpVersion !== '1.0') {
    return { status: 400, code: 'invalid_request', message: 'HTTP/1.1 requests need a Host header.' };
  }
  return undefined;
}
