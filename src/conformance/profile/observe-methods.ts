/**
 * @module conformance/profile/observe-methods
 * What an exchange shows of format 2's method, strictness and order entries (A-7.precedence,
 * A-16.non-ascii-key, A-20.options/head/allow, A-21.duplicate-members/charset). Most are
 * answers to the learning phase's own questions (learning/methods.ts, strictness.ts,
 * precedence.ts); the Allow list is read from every 405 too. The values are what one answer
 * shows; learn-methods.ts makes entries of them, hold-methods.ts judges a profile by them.
 */
import type { Exchange } from '../exchange.js';
import type { Observation } from './observe.js';

/** The questions the learning steps ask, as their intents name them. */
export const methodQuestions = {
  options: 'options',
  head: 'head',
  duplicateMembers: 'duplicate-members',
  charset: 'charset',
  nonAsciiKey: 'non-ascii-key',
  precedence: 'precedence',
} as const;

function pathOf(exchange: Exchange): string {
  try {
    return new URL(exchange.request.url).pathname;
  } catch {
    return exchange.request.url;
  }
}

function codeOf(exchange: Exchange): string | undefined {
  const json = exchange.response?.json as { code?: unknown } | undefined;
  return json && typeof json === 'object' && typeof json.code === 'string' ? json.code.slice(0, 81) : undefined;
}

/** `OPTIONS /v0/evaluations → 204` with what was sent, as the file's comments quote it. */
function seenLine(exchange: Exchange, what?: string): string {
  const response = exchange.response!;
  const code = codeOf(exchange);
  const allow = response.headers.allow === undefined ? '' : ` (Allow: ${response.headers.allow.slice(0, 60)})`;
  return `${exchange.request.method} ${pathOf(exchange).slice(0, 60)}${what ? `, ${what}` : ''} → ${response.status}${code ? ` ${code}` : ''}${allow}`;
}

/** The methods an Allow value lists, upper-cased. */
export function allowed(value: string): string[] {
  return value
    .split(',')
    .map((method) => method.trim().toUpperCase())
    .filter((method) => method !== '');
}

/** An answer's status and code, or `accepted` for a 2xx: what a strictness probe shows. */
function outcome(exchange: Exchange): Record<string, unknown> | undefined {
  const { status } = exchange.response!;
  if (status >= 200 && status < 300) return { accepted: true };
  const code = codeOf(exchange);
  return status >= 400 && code !== undefined ? { status, code } : undefined;
}

/** Everything `exchange` shows of the method, strictness and order entries. */
export function observeMethods(exchange: Exchange): Observation[] {
  const response = exchange.response;
  if (!response || response.incomplete || exchange.rateLimited || response.status === 429 || response.status >= 500) return [];
  const observations: Observation[] = [];
  const intent = exchange.intent;
  const question = intent.kind === 'learning' ? intent.question : undefined;
  const allow = response.headers.allow;
  // The Allow list of a 405, or of an answered OPTIONS: HEAD is told only where GET is listed.
  if (allow !== undefined && (response.status === 405 || (question === methodQuestions.options && response.status < 300))) {
    const methods = allowed(allow);
    observations.push({
      entry: 'A-20.allow',
      value: { ...(methods.includes('GET') ? { head: methods.includes('HEAD') } : {}), options: methods.includes('OPTIONS') },
      seen: seenLine(exchange),
    });
  }
  if (intent.kind !== 'learning') return observations;
  const detail = intent.detail ?? {};
  switch (question) {
    case methodQuestions.options:
      observations.push({
        entry: 'A-20.options',
        value: response.status < 300 ? { status: response.status, allow: allow !== undefined } : { refused: true },
        seen: seenLine(exchange),
      });
      break;
    case methodQuestions.head:
      observations.push({
        entry: 'A-20.head',
        value: response.status < 300 ? { likeGet: true } : { status: response.status },
        seen: seenLine(exchange),
      });
      break;
    case methodQuestions.duplicateMembers:
    case methodQuestions.charset:
    case methodQuestions.nonAsciiKey: {
      const shown = outcome(exchange);
      const entry =
        question === methodQuestions.charset
          ? 'A-21.charset'
          : question === methodQuestions.nonAsciiKey
            ? 'A-16.non-ascii-key'
            : 'A-21.duplicate-members';
      if (shown)
        observations.push({
          entry,
          value: question === methodQuestions.duplicateMembers ? { variant: String(detail.variant), ...shown } : shown,
          seen: seenLine(exchange, String(detail.sent ?? question)),
        });
      break;
    }
    case methodQuestions.precedence: {
      const code = codeOf(exchange);
      if (response.status >= 400 && code !== undefined)
        observations.push({
          entry: 'A-7.precedence',
          value: {
            first: String(detail.first),
            second: String(detail.second),
            operation: exchange.operationId ?? 'createEvaluation',
            status: response.status,
            code,
          },
          seen: seenLine(exchange, `${String(detail.first)} and ${String(detail.second)}`),
        });
      break;
    }
    default:
      break;
  }
  return observations;
}
