/**
 * @module mcp/tools
 * The MCP server's tools: the mock's control surface (scenarios, reset, jobs, journal, coverage
 * and client findings) through its HTTP control API, and two commands, `conformance` against a
 * URL and `diff` of two documents, through the same public functions the CLI calls (so the one
 * document loader's rules apply). Every tool has a zod input schema with bounds, and every
 * result goes through `boundedResult`: scrubbed, cut to a size an agent can read.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { credentialsFromBaseUrl, Scrubber } from '../contract/secrets.js';
import {
  boundedResult,
  checkDepth,
  checkedRemoteUrl,
  checkedSource,
  type McpAccess,
  ToolInputError,
  withoutUrlCredentials,
} from './bounds.js';
import type { MockLink } from './mock-link.js';

export interface ToolContext {
  readonly server: McpServer;
  readonly link: MockLink;
  readonly access: McpAccess;
  /** Knows the control token: every result goes through it. */
  readonly scrubber: Scrubber;
  /** The secrets the scrubber was made with, for a call that adds its own. */
  readonly secrets: readonly string[];
  /** The server-wide stop (stdin closed, SIGTERM, close()): aborts every call's work, with the call's own cancel. */
  readonly stopping?: AbortSignal;
  /** The tool calls running now: close() waits for them to have stopped. */
  readonly running?: Set<Promise<unknown>>;
}

const jobId = z.string().min(1).max(256).describe('the job id, as createEvaluation answered it');
const pageLimit = z.number().int().min(1).max(100).optional().describe('entries per page (1-100, default the mock’s)');
const cursor = z.string().max(1024).optional().describe('the nextCursor of the previous page');
const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

type Result = ReturnType<typeof boundedResult>;

/** The mock session a tool acts on (X-Mock-Session, docs/assumptions.md A-60); left out, the default one. */
const session = z
  .string()
  .regex(/^[A-Za-z0-9._~-]{1,64}$/)
  .optional()
  .describe('the mock session to act on (X-Mock-Session: 1-64 of A-Z a-z 0-9 . _ ~ -); default: the default session');

/** Runs a tool's body; a refusal of ours or a thrown error becomes a tool error with a plain message. */
async function answered(context: ToolContext, work: () => Promise<unknown>): Promise<Result> {
  const running = work();
  context.running?.add(running);
  try {
    return boundedResult(await running, context.scrubber);
  } catch (error) {
    const message = error instanceof ToolInputError ? error.message : `failed: ${(error as Error).message ?? String(error)}`;
    // A URL in the message (the agent's, the mock's) is shown without its user name and password.
    const shown = withoutUrlCredentials(context.scrubber.scrub(message), context.scrubber).slice(0, 2000);
    return { ...boundedResult(shown, context.scrubber), isError: true } as Result;
  } finally {
    context.running?.delete(running);
  }
}

/**
 * The signal a call's work stops on: the client's cancel of this call (the SDK aborts
 * `extra.signal` on notifications/cancelled, and for every call when the connection closes) or
 * the server's own stop (its reason: 'SIGTERM', 'stdin closed'), whichever comes first.
 * `release` forgets the server-wide signal once the call is over: it outlives many calls.
 */
function callSignal(context: ToolContext, cancelled: AbortSignal): { signal: AbortSignal; release: () => void } {
  const stop = new AbortController();
  const { stopping } = context;
  const onCancel = () => stop.abort('the MCP client cancelled the call or closed the connection');
  const onStopping = () => stop.abort(stopping?.reason);
  const release = () => {
    cancelled.removeEventListener('abort', onCancel);
    stopping?.removeEventListener('abort', onStopping);
  };
  if (stopping?.aborted) onStopping();
  else if (cancelled.aborted) onCancel();
  else {
    cancelled.addEventListener('abort', onCancel, { once: true });
    stopping?.addEventListener('abort', onStopping, { once: true });
  }
  return { signal: stop.signal, release };
}

function registerScenarioTools(context: ToolContext): void {
  const { server, link } = context;
  server.registerTool(
    'list_scenarios',
    {
      title: 'List scenarios',
      description: 'The scenario in force and every scenario the mock knows (name and description), with the document in force.',
      inputSchema: { session },
      annotations: readOnly,
    },
    ({ session: name }) =>
      answered(context, async () => ({
        ...((await link.call({ method: 'GET', path: '/scenarios', session: name })) as Record<string, unknown>),
        inForce: await link.call({ method: 'GET', path: '/scenario', session: name }),
      })),
  );
  server.registerTool(
    'put_scenario',
    {
      title: 'Put a scenario in force',
      description:
        'Puts a scenario in force: a known one by name, or a whole scenario document (scenarios/scenario.schema.json). Counted faults start again.',
      inputSchema: {
        name: z.string().min(1).max(200).optional().describe('a scenario the mock knows (list_scenarios)'),
        scenario: z.record(z.string(), z.unknown()).optional().describe('a whole scenario document, validated by the mock'),
        session,
      },
      annotations: { destructiveHint: true, openWorldHint: false },
    },
    ({ name, scenario, session: inSession }) =>
      answered(context, async () => {
        if ((name === undefined) === (scenario === undefined)) throw new ToolInputError('give exactly one of name and scenario');
        if (scenario !== undefined) checkDepth(scenario, 'scenario');
        return link.call({ method: 'PUT', path: '/scenario', body: name !== undefined ? { name } : { scenario }, session: inSession });
      }),
  );
  server.registerTool(
    'reset',
    {
      title: 'Reset the mock',
      description:
        'Forgets every job, idempotency key and journal entry of the session, and puts the starting scenario back in force there (other sessions keep theirs).',
      inputSchema: { session },
      annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ session: name }) => answered(context, () => link.call({ method: 'POST', path: '/reset', session: name })),
  );
}

function registerJobTools(context: ToolContext): void {
  const { server, link } = context;
  const jobPath = (id: string, rest = '') => `/jobs/${encodeURIComponent(id)}${rest}`;
  server.registerTool(
    'list_jobs',
    {
      title: 'List jobs',
      description: 'One page of the jobs the mock holds, with their status; pass nextCursor back for the next page.',
      inputSchema: { limit: pageLimit, cursor, session },
      annotations: readOnly,
    },
    ({ limit, cursor: after, session: name }) =>
      answered(context, () => link.call({ method: 'GET', path: '/jobs', query: { limit, cursor: after }, session: name })),
  );
  server.registerTool(
    'inspect_job',
    {
      title: 'Inspect a job',
      description: 'One job as the mock holds it: its status, its timeline, reads so far and what comes next.',
      inputSchema: { jobId, session },
      annotations: readOnly,
    },
    ({ jobId: id, session: name }) => answered(context, () => link.call({ method: 'GET', path: jobPath(id), session: name })),
  );
  server.registerTool(
    'advance_job',
    {
      title: 'Advance a job',
      description: 'Moves a job to the next state of its timeline now (QUEUED → RUNNING → COMPLETE or FAILED).',
      inputSchema: { jobId, session },
      annotations: { openWorldHint: false },
    },
    ({ jobId: id, session: name }) => answered(context, () => link.call({ method: 'POST', path: jobPath(id, '/advance'), session: name })),
  );
  server.registerTool(
    'set_job_state',
    {
      title: 'Set a job’s state',
      description:
        'Puts a job in a state the contract allows (docs/assumptions.md A-3, A-4): a status, and for COMPLETE an evaluation and limitations. A final state cannot move on.',
      inputSchema: {
        jobId,
        status: z.string().min(1).max(64).describe('QUEUED, RUNNING, COMPLETE or FAILED (or a state the served document adds)'),
        evaluation: z.record(z.string(), z.unknown()).optional().describe('the Evaluation of a COMPLETE job'),
        limitations: z.array(z.string().max(1024)).max(64).optional(),
        session,
      },
      annotations: { openWorldHint: false },
    },
    ({ jobId: id, session: name, ...state }) =>
      answered(context, async () => {
        checkDepth(state, 'state');
        return link.call({ method: 'PUT', path: jobPath(id, '/state'), body: state, session: name });
      }),
  );
}

function registerObservationTools(context: ToolContext): void {
  const { server, link } = context;
  server.registerTool(
    'query_journal',
    {
      title: 'Query the journal',
      description:
        'One page of the calls the mock answered in the session (request verification, A-61): method, path, status, operation, Idempotency-Key, jobId; filtered, oldest or newest first.',
      inputSchema: {
        limit: pageLimit,
        cursor,
        order: z.enum(['oldest', 'newest']).optional().describe('oldest first (default) or newest first'),
        operation: z.string().min(1).max(64).optional().describe('only calls of this operationId'),
        status: z.number().int().min(100).max(599).optional().describe('only calls answered with this status'),
        idempotencyKey: z.string().min(1).max(255).optional().describe('only creates that carried this Idempotency-Key'),
        jobId: z.string().min(1).max(200).optional().describe('only calls about this job'),
        since: z.number().int().min(0).optional().describe('only calls at or after this engine-clock time (ms)'),
        session,
      },
      annotations: readOnly,
    },
    ({ limit, cursor: after, session: name, ...filters }) =>
      answered(context, () => link.call({ method: 'GET', path: '/journal', query: { limit, cursor: after, ...filters }, session: name })),
  );
  server.registerTool(
    'coverage',
    {
      title: 'Consumer coverage',
      description:
        'Which behaviours of the contract the client under test has met (docs/coverage.md); covered=false lists only what it has not.',
      inputSchema: { covered: z.boolean().optional().describe('only the covered (true) or only the missing (false) behaviours'), session },
      annotations: readOnly,
    },
    ({ covered, session: name }) =>
      answered(context, async () => {
        const report = (await link.call({ method: 'GET', path: '/coverage', query: { covered }, session: name })) as Record<
          string,
          unknown
        >;
        const { clientFindings: _findings, ...coverage } = report;
        return coverage;
      }),
  );
  server.registerTool(
    'client_findings',
    {
      title: 'Client findings',
      description:
        'What the client judge saw the client do that would hurt against the real service (a poll loop with no back-off, a retry without its Idempotency-Key, …; docs/client-findings.md).',
      inputSchema: { session },
      annotations: readOnly,
    },
    ({ session: name }) =>
      answered(context, async () => {
        const report = (await link.call({ method: 'GET', path: '/coverage', session: name })) as { clientFindings?: unknown };
        return { clientFindings: report.clientFindings ?? [] };
      }),
  );
  server.registerTool(
    'profile',
    {
      title: 'The server profile in force',
      description:
        'The mock’s answers where the contract says "not shown", as the profile in force decides them (docs/profiles.md): where it came from, the entries it declares, and every entry’s value.',
      annotations: readOnly,
    },
    () => answered(context, () => link.call({ method: 'GET', path: '/profile' })),
  );
  server.registerTool(
    'list_sessions',
    {
      title: 'List sessions',
      description: 'The sessions of the mock (X-Mock-Session, A-60): each one’s name, jobs, calls and scenario in force.',
      annotations: readOnly,
    },
    () => answered(context, () => link.call({ method: 'GET', path: '/sessions' })),
  );
}

function registerCommandTools(context: ToolContext): void {
  const { server } = context;
  server.registerTool(
    'conformance',
    {
      title: 'Run the conformance runner',
      description:
        'Checks a live implementation against the OpenAPI document (default the bundled spec/openapi.yaml): the verdict, counts and the first failures, each with its reproduction. Public addresses only: this machine needs the server’s --allow-loopback, private networks its --allow-private.',
      inputSchema: {
        baseUrl: z.string().min(1).max(2048).describe('the server under test, http(s)'),
        spec: z.string().min(1).max(2048).optional().describe('a path inside the project or an http(s) URL of an OpenAPI 3.1 document'),
        operations: z.array(z.string().min(1).max(200)).max(50).optional().describe('operationIds to check (default all)'),
        headers: z
          .record(z.string().max(200), z.string().max(8192))
          .optional()
          .describe('headers every request carries (Authorization…); scrubbed from the result'),
        maxRequests: z.number().int().min(1).max(5000).optional().describe('requests at most (default 1000)'),
        seed: z
          .number()
          .int()
          .min(0)
          .max(2 ** 31 - 1)
          .optional(),
        maxFailures: z.number().int().min(1).max(50).optional().describe('failures listed at most (default 20)'),
      },
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    (input, extra) => answered(context, () => runConformanceTool(context, input, extra.signal)),
  );
  server.registerTool(
    'diff',
    {
      title: 'Diff two contract versions',
      description:
        'Every change between two OpenAPI 3.1 documents (paths inside the project or http(s) URLs), each classified by whom it breaks: clients written against OLD, and servers implementing OLD as `conformance --spec NEW` judges them (docs/evolution.md).',
      inputSchema: {
        old: z.string().min(1).max(2048).describe('OLD: a path or an http(s) URL'),
        new: z.string().min(1).max(2048).describe('NEW: a path or an http(s) URL'),
        format: z.enum(['text', 'json', 'markdown']).optional().describe('default text'),
      },
      annotations: readOnly,
    },
    (input, extra) => answered(context, () => runDiffTool(context, input, extra.signal)),
  );
}

async function runConformanceTool(
  context: ToolContext,
  input: {
    baseUrl: string;
    spec?: string | undefined;
    operations?: string[] | undefined;
    headers?: Record<string, string> | undefined;
    maxRequests?: number | undefined;
    seed?: number | undefined;
    maxFailures?: number | undefined;
  },
  cancelled: AbortSignal,
): Promise<unknown> {
  const baseUrl = await checkedRemoteUrl(input.baseUrl, context.access, 'baseUrl');
  const source = input.spec === undefined ? undefined : await checkedSource(input.spec, context.access, 'spec');
  // The headers' values and the URLs' passwords are this call's secrets: scrubbed from what it returns.
  const callScrubber = new Scrubber({
    secrets: [
      ...context.secrets,
      ...Object.values(input.headers ?? {}),
      ...credentialsFromBaseUrl(input.baseUrl).secrets,
      ...(input.spec === undefined ? [] : credentialsFromBaseUrl(input.spec).secrets),
    ],
    credentialHeaders: ['x-mock-token'],
  });
  const { connectGuard } = await import('../documents/index.js');
  const { runConformance, UnreachableTargetError, UnknownOperationError, verdictLine } = await import('../conformance/index.js');
  const { reportedFailures } = await import('../conformance/report/report.js');
  const { InvalidSpecError } = await import('../openapi/document.js');
  const stop = callSignal(context, cancelled);
  try {
    // The spec's fetch stops with the call too, as the run does.
    const { loadConformanceSpec } = await import('./documents.js');
    const spec =
      source === undefined
        ? undefined
        : await loadConformanceSpec({ source, addressPolicy: context.access.addresses, signal: stop.signal });
    const report = await runConformance({
      baseUrl,
      ...(spec === undefined ? {} : { spec }),
      ...(input.headers ? { headers: input.headers, secrets: Object.values(input.headers) } : {}),
      ...(input.operations ? { operations: { includeOperations: input.operations } } : {}),
      maxRequests: input.maxRequests ?? 1000,
      timeBudgetMs: 120_000,
      ...(input.seed === undefined ? {} : { seed: input.seed }),
      // The client's cancel, the connection's end, the server's stop: nothing more is sent.
      signal: stop.signal,
      // Every connection of the run is held to the server's policy, on the address connected to.
      connectGuard: connectGuard(context.access.addresses),
    });
    const failures = reportedFailures(report);
    const shown = failures.slice(0, input.maxFailures ?? 20);
    return callScrubber.scrubDeep({
      verdict: verdictLine(report),
      target: report.target,
      spec: report.spec,
      seed: report.seed,
      requests: report.requests,
      checks: report.checks.map((check) => ({ name: check.name, severity: check.severity, status: check.status })),
      failures: shown.map(({ check, severity, operation, title, expected, received, input: why, curl }) => ({
        check,
        severity,
        operation,
        title,
        expected,
        received,
        input: why,
        curl,
      })),
      ...(failures.length > shown.length ? { moreFailures: failures.length - shown.length } : {}),
      incomplete: report.incomplete,
      notes: report.notes.slice(0, 20),
    });
  } catch (error) {
    if (error instanceof UnreachableTargetError || error instanceof UnknownOperationError || error instanceof InvalidSpecError)
      throw new ToolInputError(error.message);
    throw error;
  } finally {
    stop.release();
  }
}

async function runDiffTool(
  context: ToolContext,
  input: { old: string; new: string; format?: 'text' | 'json' | 'markdown' | undefined },
  cancelled: AbortSignal,
) {
  const { access } = context;
  const sources = [await checkedSource(input.old, access, 'old'), await checkedSource(input.new, access, 'new')] as const;
  const { loadDiffDocument } = await import('./documents.js');
  const { diffDocuments, DiffLimitError, renderReport } = await import('../evolution/index.js');
  // A document's fetch stops when the call does: the client's cancel, the connection's end, the server's stop.
  const stop = callSignal(context, cancelled);
  let before: Record<string, any>;
  let after: Record<string, any>;
  try {
    before = await loadDiffDocument({ source: sources[0], label: 'old', addressPolicy: access.addresses, signal: stop.signal });
    after = await loadDiffDocument({ source: sources[1], label: 'new', addressPolicy: access.addresses, signal: stop.signal });
  } finally {
    stop.release();
  }
  const { displaySource } = await import('../documents/index.js');
  try {
    const report = diffDocuments({
      old: { document: before, source: displaySource(input.old).slice(0, 200) },
      new: { document: after, source: displaySource(input.new).slice(0, 200) },
    });
    return renderReport(report, { format: input.format ?? 'text' });
  } catch (error) {
    if (error instanceof DiffLimitError) throw new ToolInputError(`the documents cannot be compared: ${error.message}`);
    if (error instanceof RangeError) throw new ToolInputError('the documents cannot be compared: they nest too deeply');
    throw error;
  }
}

/** Registers every tool on `context.server`. */
export function registerTools(context: ToolContext): void {
  registerScenarioTools(context);
  registerJobTools(context);
  registerObservationTools(context);
  registerCommandTools(context);
}
