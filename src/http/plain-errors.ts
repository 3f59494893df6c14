/**
 * @module http/plain-errors
 * Transport failures in words a person can act on. Node's http client, llhttp and undici name
 * failures by codes (ECONNRESET, HPE_INVALID_CONSTANT, UND_ERR_SOCKET); reports never show
 * those, they say what the server did.
 */

interface CodedError {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
}

/** The innermost error code of an error and its causes (fetch wraps the socket's error in `cause`). */
function codeOf(error: unknown): string | undefined {
  for (let current = error as CodedError | undefined, depth = 0; current && depth < 5; depth += 1) {
    if (typeof current.code === 'string') return current.code;
    current = current.cause as CodedError | undefined;
  }
  return undefined;
}

function messageOf(error: unknown): string {
  const cause = (error as CodedError | undefined)?.cause as CodedError | undefined;
  const message = cause?.message ?? (error as CodedError | undefined)?.message;
  return typeof message === 'string' ? message : String(error);
}

/** Strips code-like tokens ("HPE_INVALID_CONSTANT", "ECONNRESET:") from a message. */
function withoutCodes(message: string): string {
  return (
    message
      .replace(/\b(HPE|UND_ERR|ERR)_[A-Z_]+\b:?\s*/g, '')
      .replace(/\bE[A-Z]{3,}\b:?\s*/g, '')
      .trim() || 'an unknown transport error'
  );
}

export interface PlainErrorOptions {
  /** host:port of the server, for "nothing listens at …". */
  readonly host: string;
  /** Whether part of an answer (the status line) had arrived. */
  readonly answerStarted?: boolean;
  /** Body bytes received so far. */
  readonly bytes?: number;
}

/** A transport failure in plain words, e.g. "the server closed the connection without answering". */
export function plainTransportError(error: unknown, options: PlainErrorOptions): string {
  const code = codeOf(error) ?? '';
  if (options.answerStarted) return `the server closed the connection mid-answer (${options.bytes ?? 0} bytes of body received)`;
  if (code === 'ECONNREFUSED') return `the connection was refused: nothing listens at ${options.host}`;
  // An address policy's refusal (src/documents/address-guard.ts): its message names the class and the flag.
  if (code === 'ERR_REFUSED_ADDRESS') return `not connected: ${messageOf(error)}`;
  if (
    code === 'ECONNRESET' ||
    code === 'UND_ERR_SOCKET' ||
    code === 'UND_ERR_CLOSED' ||
    /socket hang up|other side closed/i.test(messageOf(error))
  )
    return 'the server closed the connection without answering';
  if (code === 'EPIPE') return 'the server closed the connection while the request was still being sent';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host name of ${options.host} could not be resolved`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
    return `${options.host} cannot be reached from here`;
  if (code === 'HPE_HEADER_OVERFLOW' || code === 'UND_ERR_HEADERS_OVERFLOW')
    return "the answer's headers are larger than 16 KiB, more than any HTTP client accepts";
  if (code === 'HPE_INVALID_CONSTANT') return 'the answer is not HTTP: it does not start with an HTTP/1.x status line';
  if (code.startsWith('HPE_') || code === 'UND_ERR_INFO')
    return `the answer is not valid HTTP/1.1 (${withoutCodes(messageOf(error).replace(/^Parse Error:\s*/i, ''))})`;
  if (/CERT|SSL|TLS/.test(code)) return `the server's TLS certificate was not accepted: ${withoutCodes(messageOf(error))}`;
  return `the request failed: ${withoutCodes(messageOf(error))}`;
}
