/**
 * @module engine/control-api
 * The engine's control surface over HTTP, under the reserved prefix /__mock/ (outside the
 * contract's paths), described in spec/control-api.yaml. Isomorphic, so the Node mock server
 * and the MSW handlers serve the same control API. When the Node server listens beyond
 * loopback every call must carry the control token (X-Mock-Token).
 */
import { authenticateChallenge, mockRealm } from '../contract/authorization.js';
import { answerToResponse, callFromRequest } from './call.js';
import type { ConsumerReport } from './consumer-watch.js';
import type { JournalRequest, MockControl, SessionSummary } from './control-surface.js';
import { ControlError, type MockEngine } from './engine.js';
import { inspectorPath } from './inspector/path.js';
import type { JournalFilter } from './journal.js';
import { type ProviderStateChange, pactParties } from './pact/index.js';
import { type ControlErrorCode, errorAnswer, jsonAnswer, quote } from './responses.js';
import { checkScenario, parseScenario, ScenarioError } from './scenario.js';
import { sessionHeader } from './session-book.js';
import { StoreUnavailableError } from './store.js';

export const controlPrefix = '/__mock';

function json(status: number, body: unknown): Response {
  return answerToResponse(jsonAnswer({ status, body }));
}

/**
 * The contract's Error body, through the engine's one builder (cut to the schema's limits).
 * The control API has codes of its own (spec/control-api.yaml), outside the contract's set.
 */
function problem(status: number, code: ControlErrorCode, message: string, headers?: Record<string, string>): Response {
  return answerToResponse(errorAnswer({ status, code, message, ...(headers ? { headers } : {}) }));
}

/** The control API's challenge (RFC 9110 §15.5.2: every 401 carries one): its token goes in X-Mock-Token. */
const controlChallenge = authenticateChallenge({ scheme: 'ApiKey', header: 'X-Mock-Token', realm: `${mockRealm} control API` });

/** `limit` and `cursor` from the query, as the listings take them. */
function pageQuery(url: URL): { limit?: number; cursor?: string } {
  const limit = url.searchParams.get('limit');
  const cursor = url.searchParams.get('cursor');
  if (limit !== null && !/^[0-9]{1,4}$/.test(limit)) {
    throw new ControlError(`limit must be a whole number from 1 to 1000, got ${quote(limit, 20)}`, 'invalid');
  }
  return { ...(limit === null ? {} : { limit: Number(limit) }), ...(cursor === null ? {} : { cursor }) };
}

/**
 * The journal query of `GET /__mock/journal` (A-61): the page, the filter and the order, each
 * checked, so a bad value is a 400 naming it rather than an empty page.
 */
export function journalQuery(url: URL): JournalRequest {
  const params = url.searchParams;
  const filter: { -readonly [Key in keyof JournalFilter]: JournalFilter[Key] } = {};
  const text = (name: string, max: number): string | undefined => {
    const value = params.get(name);
    if (value === null) return undefined;
    if (value === '' || value.length > max)
      throw new ControlError(`${name} must be 1 to ${max} characters, got ${quote(value, 40)}`, 'invalid');
    return value;
  };
  const operation = text('operation', 128);
  if (operation !== undefined) filter.operation = operation;
  const key = text('idempotencyKey', 255);
  if (key !== undefined) filter.idempotencyKey = key;
  const jobId = text('jobId', 256);
  if (jobId !== undefined) filter.jobId = jobId;
  const status = params.get('status');
  if (status !== null) {
    if (!/^[1-5][0-9]{2}$/.test(status))
      throw new ControlError(`status must be an HTTP status from 100 to 599, got ${quote(status, 20)}`, 'invalid');
    filter.status = Number(status);
  }
  const since = params.get('since');
  if (since !== null) {
    if (!/^[0-9]{1,16}$/.test(since)) {
      throw new ControlError(
        `since must be engine-clock milliseconds (a whole number ≥ 0, as an entry's time), got ${quote(since, 30)}`,
        'invalid',
      );
    }
    filter.since = Number(since);
  }
  const order = params.get('order');
  if (order !== null && order !== 'oldest' && order !== 'newest') {
    throw new ControlError(`order must be oldest or newest, got ${quote(order, 20)}`, 'invalid');
  }
  return {
    ...pageQuery(url),
    ...(Object.keys(filter).length > 0 ? { filter } : {}),
    ...(order === null ? {} : { order }),
  };
}

/** True when `pathname` is under the control API's prefix. */
export function isControlPath(pathname: string): boolean {
  return pathname === controlPrefix || pathname.startsWith(`${controlPrefix}/`);
}

const controlBodyLimit = 1024 * 1024;

async function readJson(request: Request): Promise<unknown> {
  // The same bounded reader as the contract's operations: an oversized body is never buffered.
  const bytes = await callFromRequest(request).readBody(controlBodyLimit);
  if (bytes === 'too_large') throw new ControlError('the control request body is over 1 MiB', 'invalid');
  if (bytes === 'unreadable') throw new ControlError('the control request body ended before it was complete', 'invalid');
  const text = new TextDecoder().decode(bytes);
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ControlError(`the body is not well-formed JSON: ${(error as Error).message}`, 'invalid');
  }
}

/**
 * The coverage document, with only the covered or only the missing behaviours when
 * `?covered=true|false` asks (the counts stay the whole catalogue's).
 */
function coverageListing<Report extends ConsumerReport>(report: Report, url: URL): Report {
  const covered = url.searchParams.get('covered');
  if (covered === null) return report;
  if (covered !== 'true' && covered !== 'false')
    throw new ControlError(`covered must be true or false, got ${quote(covered, 20)}`, 'invalid');
  return { ...report, behaviours: report.behaviours.filter((behaviour) => behaviour.covered === (covered === 'true')) };
}

/** True for `?sessions=all`: every session's coverage or pact (A-60), not the caller's session's. */
function allSessions(url: URL): boolean {
  const sessions = url.searchParams.get('sessions');
  if (sessions === null) return false;
  if (sessions !== 'all') throw new ControlError(`sessions must be all, got ${quote(sessions, 20)}`, 'invalid');
  return true;
}

/** `consumer` and `provider` from the query, checked as the pact writer checks them. */
function pactPartiesQuery(url: URL): { consumer?: string; provider?: string } {
  const parties: { consumer?: string; provider?: string } = {};
  for (const role of ['consumer', 'provider'] as const) {
    const name = url.searchParams.get(role);
    if (name !== null) parties[role] = name;
  }
  try {
    pactParties(parties);
  } catch (error) {
    throw new ControlError((error as Error).message, 'invalid');
  }
  return parties;
}

function field(body: unknown, name: string): unknown {
  return body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
}

/** Constant-time comparison, so the token cannot be guessed a character at a time. */
function sameToken(given: string, expected: string): boolean {
  if (given.length !== expected.length) return false;
  let difference = 0;
  for (let index = 0; index < given.length; index += 1) difference |= given.charCodeAt(index) ^ expected.charCodeAt(index);
  return difference === 0;
}

export interface ControlApiOptions {
  readonly engine: MockEngine;
  /** When set, calls without `X-Mock-Token: <token>` are refused with 401. */
  readonly token?: string;
  /**
   * Where `/__mock/journal` reads and clears, when not the engine's own journal: replicas on a
   * shared store read the journal they all write (src/server/redis). Default: the engine's.
   */
  readonly journal?: ControlJournal;
  /** The same, for a named session (A-60): each session's journal is its own. */
  readonly sessionJournal?: (session: string) => ControlJournal;
  /**
   * What `GET /__mock/sessions` lists, given this engine's own sessions: replicas on a shared
   * store list every replica's (A-60). Default: the engine's.
   */
  readonly sessions?: (local: readonly SessionSummary[]) => Promise<readonly SessionSummary[]>;
}

/** A journal the control API reads and clears in place of the engine's own (replicas on a shared store). */
export interface ControlJournal {
  page(options: JournalRequest): Promise<{ entries: readonly unknown[]; nextCursor?: string }>;
  clear(): Promise<void>;
}

/**
 * The session a control call acts on (`X-Mock-Session`, A-60), the journal it reads, and what to
 * do with a session the call made once it is answered: kept if the call acted, forgotten if it
 * was refused, so a refused call makes no session and evicts none.
 */
async function sessionOf(
  request: Request,
  options: ControlApiOptions,
): Promise<{ control: MockControl; journal?: ControlJournal; settle(status: number): void }> {
  const name = request.headers.get(sessionHeader);
  const { control } = options.engine;
  if (name === null) return { control, ...(options.journal ? { journal: options.journal } : {}), settle: () => undefined };
  const opening = control.openSession(name);
  const settle = (status: number) => (status < 400 ? opening.commit() : opening.discard());
  const session = opening.control;
  try {
    // A session new to this replica adopts what the others share of it before it is acted on.
    await session.synced();
  } catch (error) {
    opening.discard();
    throw error;
  }
  const journal =
    options.sessionJournal && session.sessionName !== 'default' ? options.sessionJournal(session.sessionName) : options.journal;
  return { control: session, ...(journal ? { journal } : {}), settle };
}

/**
 * Answers a /__mock/ request. Every JSON answer (the journal, coverage, pact, jobs, errors
 * quoting what was asked) is scrubbed of the credentials the engine has seen (A-10): a token the
 * client also put in a path or a key is not handed back to the inspector or a test's report.
 */
export async function handleControl(request: Request, options: ControlApiOptions): Promise<Response> {
  const response = await guardedControl(request, options);
  const scrubber = options.engine.scrubber;
  if (!scrubber?.active || !(response.headers.get('content-type') ?? '').includes('json')) return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  // Scrubbed as values, not as text: a learnt value that spans JSON's own punctuation cannot break the document.
  const body = text === '' ? text : JSON.stringify(scrubber.scrubDeep(JSON.parse(text) as unknown));
  return new Response(body, { status: response.status, headers });
}

/** The token, the session, then the operation: a refused call changes nothing (A-60). */
async function guardedControl(request: Request, options: ControlApiOptions): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname.slice(controlPrefix.length);
  const method = request.method.toUpperCase();
  // The inspector's files hold no data (the page fetches it, with the token the user types), so a
  // browser, which cannot add X-Mock-Token to a navigation, can open the page beyond loopback.
  // Its files load when first asked for: most test files import the engine and never open it.
  const page =
    (method === 'GET' || method === 'HEAD') && (path === inspectorPath || path.startsWith(`${inspectorPath}/`))
      ? (await import('./inspector/index.js')).inspectorFile(path)
      : undefined;
  if (page) return new Response(method === 'HEAD' ? null : page.body, { status: 200, headers: page.headers });
  if (options.token !== undefined && !sameToken(request.headers.get('x-mock-token') ?? '', options.token)) {
    return problem(401, 'control_token_required', 'The control API needs the X-Mock-Token header printed when the mock started.', {
      'www-authenticate': controlChallenge,
    });
  }
  let settle: ((status: number) => void) | undefined;
  try {
    const session = await sessionOf(request, options);
    settle = session.settle;
    const response = await answerControl({ request, url, path, method, control: session.control, journal: session.journal, options });
    settle(response.status);
    return response;
  } catch (error) {
    settle?.(500);
    if (error instanceof ControlError)
      return problem(error.kind === 'not_found' ? 404 : 400, error.kind === 'not_found' ? 'not_found' : 'invalid_request', error.message);
    if (error instanceof ScenarioError) return problem(400, 'invalid_scenario', error.message);
    if (error instanceof StoreUnavailableError) {
      const answer = errorAnswer({ status: 503, code: 'service_unavailable', message: error.message, headers: { 'retry-after': '1' } });
      return answerToResponse(answer);
    }
    throw error;
  }
}

/** One control operation, in the session `sessionOf` gave. */
async function answerControl(context: {
  request: Request;
  url: URL;
  path: string;
  method: string;
  control: MockControl;
  journal: ControlJournal | undefined;
  options: ControlApiOptions;
}): Promise<Response> {
  const { request, url, path, method, control, journal, options } = context;
  const jobPath = /^\/jobs\/([^/]+)(\/advance|\/state)?$/.exec(path);
  if (path === '/sessions' && method === 'GET') {
    const local = control.sessions();
    return json(200, { current: control.sessionName, sessions: options.sessions ? await options.sessions(local) : local });
  }
  if (path === '/scenarios' && method === 'GET') {
    return json(200, {
      current: control.scenario,
      scenarios: control.scenarios().map(({ name, description }) => ({ name, description })),
    });
  }
  if (path === '/scenario' && method === 'GET') {
    // The document in force, as PUT takes it back: {"scenario": {…}} puts it in force again.
    const inForce = control.scenarios().find((scenario) => scenario.name === control.scenario);
    return json(200, { current: control.scenario, ...(inForce ? { scenario: inForce } : {}) });
  }
  if (path === '/scenario' && method === 'PUT') {
    const body = await readJson(request);
    const choice = field(body, 'scenario') ?? field(body, 'name');
    if (typeof choice !== 'string' && (typeof choice !== 'object' || choice === null)) {
      throw new ControlError('give {"name": "<scenario>"} or {"scenario": { …a scenario… }}', 'invalid');
    }
    // A scenario document is validated whole, its patterns compiled, before it is put in force.
    const scenario =
      typeof choice === 'string'
        ? control.useScenario(choice)
        : control.useScenario(await checkScenario({ scenario: parseScenario({ value: choice, source: 'scenario' }), source: 'scenario' }));
    // Answered once every replica sharing the store can see it (at once for a lone mock).
    await control.synced();
    return json(200, { current: scenario.name });
  }
  if (path === '/reset' && method === 'POST') {
    await control.reset();
    // A reset forgets the journal; replicas on a shared store forget the one they share.
    await journal?.clear();
    return json(200, { current: control.scenario });
  }
  if (path === '/jobs' && method === 'GET') return json(200, await control.jobsPage(pageQuery(url)));
  if (jobPath) {
    let jobId: string;
    try {
      jobId = decodeURIComponent(jobPath[1]!);
    } catch {
      // Not valid percent-encoding: it names no job.
      return problem(404, 'job_not_found', `No job ${quote(jobPath[1]!, 140)}.`);
    }
    if (!jobPath[2] && method === 'GET') {
      const job = await control.inspectJob(jobId);
      return job ? json(200, job) : problem(404, 'job_not_found', `No job ${quote(jobId, 140)}.`);
    }
    if (jobPath[2] === '/advance' && method === 'POST') return json(200, await control.advanceJob(jobId));
    if (jobPath[2] === '/state' && method === 'PUT') {
      const body = await readJson(request);
      return json(200, await control.setJobState({ ...(body as object), jobId } as Parameters<typeof control.setJobState>[0]));
    }
  }
  if (path === '/profile' && method === 'GET') return json(200, control.profile());
  if (path === '/coverage' && method === 'GET')
    return json(200, coverageListing(allSessions(url) ? control.coverageOfAllSessions() : control.coverage(), url));
  if (path === '/coverage/reset' && method === 'POST') {
    control.resetCoverage();
    return json(200, control.coverage());
  }
  if (path === '/pact' && method === 'GET') {
    const parties = pactPartiesQuery(url);
    return json(200, allSessions(url) ? control.pactOfAllSessions(parties) : control.pact(parties));
  }
  if (path === '/provider-states' && method === 'POST') {
    return json(200, await control.providerState((await readJson(request)) as ProviderStateChange));
  }
  if (path === '/journal' && method === 'GET') {
    return json(200, journal ? await journal.page(journalQuery(url)) : control.journalPage(journalQuery(url)));
  }
  if (path === '/journal' && method === 'DELETE') {
    control.clearJournal();
    await journal?.clear();
    return json(200, { entries: [] });
  }
  return problem(
    404,
    'route_not_found',
    `No control operation ${quote(method, 20)} ${quote(`${controlPrefix}${path}`, 200)}; see spec/control-api.yaml.`,
  );
}
