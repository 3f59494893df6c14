/**
 * @module evolution/classify
 * From what a change does to the values a schema accepts, and which way those values travel, to
 * who it breaks; and the sentence that says what to do about it. This is where variance lives:
 * a request value narrowed refuses what OLD clients send, a request value widened lets NEW
 * clients send what OLD servers refuse; a response value widened can reach OLD clients that were
 * not written for it, a response value narrowed makes OLD servers' answers non-conforming.
 */
import type { Breaks, Direction, Effect } from './types.js';

export const compatible: Breaks = { clients: false, servers: false };
export const breaksBoth: Breaks = { clients: true, servers: true };
export const breaksClients: Breaks = { clients: true, servers: false };
export const breaksServers: Breaks = { clients: false, servers: true };

export function breaksOf(effect: Effect, direction: Direction): Breaks {
  if (effect === 'none') return compatible;
  if (effect === 'both') return breaksBoth;
  const clients = direction === 'request' ? effect === 'narrows' : effect === 'widens';
  return { clients, servers: !clients };
}

/** The effect of two effects at once (a property both added and required, say). */
export function combine(a: Effect, b: Effect): Effect {
  if (a === 'none') return b;
  if (b === 'none' || a === b) return a;
  return 'both';
}

/** What a person should do about a change, by who it breaks and which way its values travel. */
export function adviceFor(breaks: Breaks, direction: Direction | undefined): string {
  if (!breaks.clients && !breaks.servers) return 'No client or server needs to change.';
  const clients = {
    request:
      'clients written against OLD may send requests NEW refuses or treats differently: update clients before the server changes, or keep accepting the old form',
    response:
      'clients written against OLD may receive answers they were not written for: make clients handle them before servers send them',
    none: 'clients written against OLD may be refused or get answers they were not written for: update them',
  };
  const servers = {
    request: 'servers implementing OLD refuse or ignore what NEW lets clients send: update servers before clients rely on it',
    response: 'servers implementing OLD may answer what NEW no longer allows: update servers',
    none: 'servers implementing OLD no longer conform to NEW: update them',
  };
  const parts = [breaks.clients ? clients[direction ?? 'none'] : '', breaks.servers ? servers[direction ?? 'none'] : ''].filter(Boolean);
  const text = parts.join('; and ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

/**
 * Where the project's conformance runner sends single-constraint mutations of a request and
 * requires a refusal (src/conformance/probes/data-probes.ts, A-46): JSON request bodies (every
 * constraint kind of generators/mutations.ts) and header and path parameters (all but `type`,
 * which text cannot carry); query and cookie parameters are not mutated.
 */
export type MutatedPart = 'body' | 'parameter';

interface RunnerSite {
  readonly direction?: Direction;
  readonly where: string;
  readonly new: { readonly pointer: string };
  readonly operation?: { readonly method: string; readonly path: string };
  readonly documents?: { readonly new: Record<string, any> };
}

/**
 * Whether the runner requires 400 of a path value NEW refuses. For an operation that documents
 * no 400 it takes any 4xx, and a server implementing OLD answers a value out of its own
 * range, or an id it does not know, 404: the run cannot tell the two documents apart.
 */
function pathValuesJudged(context: RunnerSite): boolean {
  const { operation, documents } = context;
  const responses = operation && documents?.new.paths?.[operation.path]?.[operation.method.toLowerCase()]?.responses;
  return Boolean(responses && typeof responses === 'object' && ('400' in responses || '413' in responses));
}

export function runnerMutates(context: RunnerSite): MutatedPart | undefined {
  if (context.direction !== 'request') return undefined;
  if (/ path parameter /.test(`${context.where} `)) return pathValuesJudged(context) ? 'parameter' : undefined;
  if (/ header parameter /.test(`${context.where} `)) return 'parameter';
  if (/ (query|cookie) parameter /.test(`${context.where} `)) return undefined;
  const media = /\/requestBody\/content\/([^/]+)/.exec(context.new.pointer)?.[1];
  if (media === undefined) return undefined;
  const type = decodeURIComponent(media).replaceAll('~1', '/').replaceAll('~0', '~').toLowerCase();
  return /^application\/(.+\+)?json$/.test(type) ? 'body' : undefined;
}

/**
 * The patterns the runner can build a valid value for (generators/mutations.ts `validString`:
 * one character class, a fixed count), and so send near misses of. Other patterns get none.
 */
export function runnerCanMutatePattern(pattern: unknown): boolean {
  return typeof pattern === 'string' && /^\^\[([^\]]+)\]\{(\d+)\}\$$/.test(pattern);
}

/**
 * A request narrowing the runner probes: it sends a value OLD accepts and NEW refuses, and
 * requires 400 (or 413), so a server implementing OLD fails `conformance --spec NEW` as well as
 * OLD clients being refused.
 */
export const probedNarrowing = {
  breaks: breaksBoth,
  advice:
    'Clients written against OLD may send requests NEW refuses: update clients before the server changes; and servers implementing OLD accept what NEW refuses, which `conformance --spec NEW` sends, requiring a 400 (or 413): make servers refuse it.',
} as const;

/** A request value widened where the runner cannot tell OLD from NEW (a path value of an operation with no 400). */
export function runnerBlindToWidening(context: RunnerSite): boolean {
  return context.direction === 'request' && / path parameter /.test(`${context.where} `) && !pathValuesJudged(context);
}

/** What such a widening is: compatible for the run, with the reason in its advice. */
export const unseenWidening = {
  breaks: compatible,
  advice:
    'No client needs to change, and `conformance --spec NEW` cannot fail a server implementing OLD for it (the operation documents no 400, so the 404 OLD answers is accepted, A-23); servers should still accept the wider values before clients send them.',
} as const;

/**
 * What a security change asks of people: the runner sends the credentials it is given (--header)
 * whatever the document's security says, and reads no scheme, so a server
 * implementing OLD passes `conformance --spec NEW` all the same.
 */
export const unreadSecurityAdvice =
  'Clients written against OLD may authenticate in a way NEW no longer accepts: review and update them. `conformance --spec NEW` does not read security schemes or requirements, so it cannot fail a server implementing OLD for this; servers must still enforce what NEW requires.';

/**
 * A request widening the runner never exercises: it sends nothing a server implementing OLD
 * refuses (no request without an optional body, no body in a media type other than
 * application/json), so that server passes `conformance --spec NEW`; `what` says what
 * servers should still accept before clients rely on it.
 */
export function unexercisedWidening(what: string): { readonly breaks: Breaks; readonly advice: string } {
  return {
    breaks: compatible,
    advice: `No client needs to change, and \`conformance --spec NEW\` sends nothing a server implementing OLD refuses for it; but such a server still refuses ${what}: update servers before clients rely on it.`,
  };
}

/**
 * A change the runner cannot see, classified as breaking clients only: the runner does not read
 * the part that changed (serialization styles, defaults), so a server implementing OLD passes
 * `conformance --spec NEW`; `clients` says what clients should do, `why` why the run cannot tell.
 */
export function unseenByRunner(options: { clients: string; why: string }): { readonly breaks: Breaks; readonly advice: string } {
  return {
    breaks: breaksClients,
    advice: `${options.clients}. \`conformance --spec NEW\` cannot fail a server implementing OLD for it (${options.why}); servers must still follow NEW.`,
  };
}
