/**
 * @module test/support/rule-agreement
 * What the runner-agreement tests (test/evolution/runner-agreement-*.test.ts) share: a pair of
 * documents per rule of `diff`, a server implementing each document, and the check that `diff`'s
 * servers axis says what `conformance --spec NEW` does to the server implementing OLD (A-46).
 *
 * A server implementing a document is the mock engine built from it, reshaped where the engine's
 * answers come from its own code rather than from the document (a response header, a status, a
 * media type, a header parameter it does not enforce): one `Reshape` per side, which says what
 * that document promises and the engine does not do by itself.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { contractFromDocument, type EngineContract } from '../../src/engine/engine-contract.js';
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';
import { diffDocuments } from '../../src/evolution/index.js';
import { loadBundledDocument } from '../../src/openapi/bundled-document.js';
import { type ContractDocument, loadContract } from '../../src/openapi/document.js';
import { bundledSpecPath } from '../../src/openapi/package-root.js';

export type Doc = Record<string, any>;
export type Handler = (request: Request) => Promise<Response>;
/** How a server implementing a document differs from the engine built from it. */
export type Reshape = (handler: Handler) => Handler;

export interface RulePair {
  readonly rule: string;
  /** What the pair shows, in a few words (the test's name). */
  readonly what?: string;
  /** The operations the runner sends to (default createEvaluation). */
  readonly operations?: readonly string[];
  /** Applied to the bundled document to make OLD. */
  readonly base?: (doc: Doc) => void;
  /** Applied to OLD to make NEW. */
  readonly edit: (doc: Doc) => void;
  readonly oldServer?: Reshape;
  readonly newServer?: Reshape;
}

let bundled: Promise<Doc> | undefined;
/** The bundled document, read once per file. */
export function bundledDocument(): Promise<Doc> {
  bundled ??= loadBundledDocument({ source: bundledSpecPath() }).then((loaded) => loaded.document);
  return bundled;
}

/** One document's parts, built once per text: a pair's OLD is often another pair's OLD too. */
interface Built {
  readonly contract: ContractDocument;
  readonly engine: EngineContract;
}
const built = new Map<string, Promise<Built>>();
let written = 0;
let made: string | undefined;
/** Where the documents are written for the one loader (which reads a path), made on first use. */
function folder(): string {
  made ??= mkdtempSync(join(tmpdir(), 'eh-runner-agreement-'));
  return made;
}

async function build(document: Doc): Promise<Built> {
  const text = JSON.stringify(document);
  let entry = built.get(text);
  if (!entry) {
    entry = (async () => {
      written += 1;
      const file = join(folder(), `openapi-${written}.json`);
      writeFileSync(file, text);
      const contract = await loadContract({ source: file });
      const engine = contractFromDocument(contract.document);
      await engine.ready;
      return { contract, engine };
    })();
    built.set(text, entry);
  }
  return entry;
}

/** What `conformance --spec NEW` says of a fresh server implementing `server`. */
interface RunOutcome {
  /** The run's verdict, what its exit code says: failed when a required check failed. */
  readonly verdict: string;
  /** The required checks' failures, which make that verdict (advisory ones do not, without --strict). */
  readonly failures: readonly string[];
}

async function runAgainst(options: { server: Doc; reshape?: Reshape; spec: Doc; operations: readonly string[] }): Promise<RunOutcome> {
  const [server, spec] = await Promise.all([build(options.server), build(options.spec)]);
  const engine = createMockEngine({ spec: server.engine, clock: new VirtualClock({ start: Date.UTC(2026, 10, 25) }) });
  const plain: Handler = async (request) => engine.handle(await framed(request));
  const handler = options.reshape ? options.reshape(plain) : plain;
  try {
    const report = await runConformance({
      baseUrl: 'http://mock.test',
      spec: spec.contract,
      seed: 7,
      replayWaitMs: 0,
      operations: { includeOperations: [...options.operations] },
      fetch: handler,
    });
    const failures = report.checks
      .filter((check) => check.severity === 'required')
      .flatMap((check) => check.failures.map((failure) => `${check.name}: ${failure.input} → ${failure.received}`));
    return { verdict: report.verdict, failures };
  } finally {
    engine.close?.();
  }
}

/**
 * The request as node:http would deliver it: a body comes with its Content-Length, which a Fetch
 * Request built in-process does not carry, and by which the engine tells an optional body sent
 * from none (src/engine/example-operations.ts).
 */
async function framed(request: Request): Promise<Request> {
  if (request.body === null || request.headers.has('content-length')) return request;
  const body = await request.arrayBuffer();
  const headers = new Headers(request.headers);
  headers.set('content-length', String(body.byteLength));
  return new Request(request.url, { method: request.method, headers, body });
}

/** OLD and NEW of a pair. */
export async function documentsOf(pair: RulePair): Promise<{ before: Doc; after: Doc }> {
  const before = structuredClone(await bundledDocument());
  pair.base?.(before);
  const after = structuredClone(before);
  pair.edit(after);
  return { before, after };
}

/**
 * The agreement: the pair's rule fires; the server implementing NEW passes `conformance --spec
 * NEW`; and the rule (and the whole diff) says "breaks servers" exactly when the server
 * implementing OLD fails that run: its verdict, what the command exits with (advisory checks
 * fail a run only under --strict, so they do not count, on either side).
 */
export async function expectAgreement(pair: RulePair): Promise<void> {
  const { before, after } = await documentsOf(pair);
  const report = diffDocuments({ old: { document: before, source: 'old' }, new: { document: after, source: 'new' } });
  const own = report.changes.filter((change) => change.rule === pair.rule);
  expect(own, `the pair makes ${pair.rule} fire`).not.toEqual([]);
  const operations = pair.operations ?? ['createEvaluation'];
  const newServer = await runAgainst({ server: after, reshape: pair.newServer, spec: after, operations });
  expect(newServer, 'the server implementing NEW passes conformance --spec NEW').toEqual({ verdict: 'passed', failures: [] });
  const oldServer = await runAgainst({ server: before, reshape: pair.oldServer, spec: after, operations });
  expect(oldServer.verdict, 'the run against the server implementing OLD completes').not.toBe('incomplete');
  const runnerFailsOld = oldServer.verdict === 'failed';
  const verdict = {
    rule: own.some((change) => change.breaks.servers),
    diff: report.changes.some((change) => change.breaks.servers),
  };
  expect({ ...verdict, runnerFailsOld, failures: oldServer.failures.slice(0, 3) }).toMatchObject({
    rule: runnerFailsOld,
    diff: runnerFailsOld,
  });
}

/** The test name of a pair. */
export function pairName(pair: RulePair, index: number): string {
  return `${pair.rule}${pair.what ? ` (${pair.what})` : ''} #${index + 1}`;
}

// Reshapes: what a document promises that the engine does not do by itself.

/** Answers of `path` (a prefix) passed through `change`. */
export function reshapeAnswers(path: string, change: (response: Response, request: Request) => Promise<Response> | Response): Reshape {
  return (handler) => async (request) => {
    const response = await handler(request);
    return new URL(request.url).pathname.startsWith(path) ? change(response, request) : response;
  };
}

/** The same answer with its headers edited. */
export async function withHeaders(response: Response, edit: (headers: Headers) => void): Promise<Response> {
  const headers = new Headers(response.headers);
  edit(headers);
  const body = response.status === 204 || response.status === 304 ? null : await response.arrayBuffer();
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** The same answer under another status. */
export async function withStatus(response: Response, status: number): Promise<Response> {
  const headers = new Headers(response.headers);
  return new Response(await response.arrayBuffer(), { status, headers });
}

/** Requests to `path` (a prefix) checked first: `refuse` names what is wrong with one, or undefined. */
export function refuseRequests(path: string, refuse: (request: Request) => string | undefined): Reshape {
  return (handler) => async (request) => {
    if (new URL(request.url).pathname.startsWith(path)) {
      const problem = refuse(request);
      if (problem !== undefined)
        return Response.json(
          { code: 'invalid_request', message: problem },
          { status: 400, headers: { 'content-type': 'application/json' } },
        );
    }
    return handler(request);
  };
}

/** Requests to `path` (a prefix) rewritten before the engine sees them. */
export function rewriteRequests(path: string, rewrite: (request: Request) => Request | Promise<Request>): Reshape {
  return (handler) => async (request) =>
    new URL(request.url).pathname.startsWith(path) ? handler(await rewrite(request)) : handler(request);
}
