/**
 * @module cli/mock-command
 * `evidence-harness mock`: the stateful mock of the contract on a local port, for client
 * development.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { contractFromDocument, type EngineContract } from '../engine/engine-contract.js';
import {
  createMockEngine,
  defaultLimits,
  type EngineLimits,
  normalizeBasePath,
  ScenarioError,
  StoreUnavailableError,
} from '../engine/index.js';
import { loadContract } from '../openapi/document.js';
import { normalizeControlOrigin } from '../server/control-guard.js';
import { startMockServer } from '../server/mock-server.js';
import type { SharedState } from '../server/redis/shared-state.js';
// The URL helpers only: the Redis client itself is loaded when --store is given.
import { isRedisUrl, redactedUrl } from '../server/redis/store-url.js';
import { isScenarioPath, type LoadedScenarioFile, readScenarioFile, ScenarioFileError } from '../server/scenario-file.js';
import { watchScenarioFile } from '../server/scenario-watch.js';
import { createLineBuffer } from './buffered-lines.js';
import { type Command, diagnostic, exitCodes, formatSize, integerOption, parseCommandLine, sizeOption, UsageError } from './command.js';
import { configFileNames, loadConfig, withConfigArguments } from './config-file.js';
import { coverageSummary, parseCoverageReportOption, writeCoverageReports } from './coverage-report.js';
import { specAdvice, specFileProblem } from './spec-file.js';
import { untilStopSignal } from './stop-signals.js';

/**
 * After a stop signal: how long in-flight requests may take to finish before their connections
 * are cut, and how long after that anything left may keep the process alive. Together under
 * the 5 s a supervisor should have to wait.
 */
const shutdown = { graceMs: 3000, exitAfterMs: 1000 } as const;

/** Largest budget a size option accepts: past it the figure means nothing on a laptop. */
const maxBudgetBytes = 1024 ** 4;

const help = `Usage: evidence-harness mock [options]

Serves a stateful mock of the Evidence Evaluation and Verification Service: jobs that move
from QUEUED to a final state as you poll, idempotency that bites (409), the 400/413 split,
and scripted failures. The same engine runs inside the MSW handlers.

Options:
  --port N             port to listen on (default 4010; 0 picks a free one)
  --host HOST          address to listen on (default 127.0.0.1)
  --scenario NAME|FILE a shipped scenario (default: default) or a JSON/YAML scenario file
  --seed N             seed job ids and fractional faults, for reproducible runs
  --base-path PATH     serve the contract under a prefix, e.g. /api
  --spec FILE|URL      serve another version of the contract: an OpenAPI 3.1 document (default:
                       the bundled spec/openapi.yaml). Its routes, validation and limits drive the
                       mock; operations it adds are answered from its examples (docs/evolution.md)
  --control-token T    token for the control API (/__mock/); generated when --host is not loopback
  --control-origin O   let web pages of origin O (such as http://localhost:5173) call the control
                       API with CORS; repeatable. Without it, a control call carrying any Origin
                       is refused, and so is one whose Host is not this machine (DNS rebinding)
  --watch              reload the --scenario file when it changes (the journal notes each reload;
                       a file that does not validate is reported and the scenario stays as it was).
                       It must stay a regular file where the path led at start: a symbolic link
                       given is followed once, and a link, FIFO or folder put there later is refused
  --tls-cert FILE      serve HTTPS with this certificate (PEM), so an https frontend can call the
  --tls-key FILE       mock without mixed-content errors; give both
  --config FILE        read options from FILE (default: ${configFileNames.join(', ')}
                       in the working folder, if there); flags given here win
  --store URL          keep jobs, idempotency keys, scenarios and the journal in Redis
                       (redis://HOST:PORT[/DB]), so several replicas serve one mock and a restart
                       loses nothing (docs/scale-out.md); default: in memory. Also read from
                       EVIDENCE_HARNESS_STORE
  --store-namespace NS keep this mock's keys apart from other mocks on the same Redis
                       (default evidence-harness)
  --coverage-report F=FILE  when the mock stops, write its consumer coverage and client findings
                       to FILE as json or html (json=coverage.json, html=coverage.html); repeatable
  --quiet              no per-request log lines (they are written in batches, about 10 ms apart),
                       and no coverage summary when the mock stops
  -h, --help           show this help

Memory bounds, oldest entries evicted first (SIZE: bytes, or with a unit: 512KiB, 64MiB, 1GiB):
  --max-jobs N                jobs kept (default ${defaultLimits.maxJobs})
  --max-job-bytes SIZE        jobs kept, in estimated bytes (default ${formatSize(defaultLimits.maxJobBytes)})
  --max-key-bytes SIZE        idempotency keys kept, estimated (default ${formatSize(defaultLimits.maxIdempotencyKeyBytes)})
  --max-journal-bytes SIZE    request journal, estimated (default ${formatSize(defaultLimits.maxJournalBytes)})
  --max-scenario-bytes SIZE   scenarios registered at run time (default ${formatSize(defaultLimits.maxScenarioRegistryBytes)})
On Linux with glibc and Node 22.15 or later, the mock restarts itself once at launch (same PID)
with MALLOC_MMAP_THRESHOLD_=32768, so that memory freed after a flood of large requests goes back
to the system; EVIDENCE_HARNESS_MALLOC_TUNING=off, or your own MALLOC_MMAP_THRESHOLD_, prevents it.

Stopping: SIGINT (Ctrl+C) or SIGTERM stops it gracefully: no new connections, requests waiting
in a scenario's latency are answered at once, the others get ${shutdown.graceMs / 1000} s to finish, then it exits 0
(within ${(shutdown.graceMs + shutdown.exitAfterMs) / 1000} s). A second signal exits at once: 130 after SIGINT, 143 after SIGTERM.

Scenarios shipped: default, slow-pass, fail, indeterminate, job-failed, manual, by-operation-id,
flaky-503, rate-limited, error-400, error-404, error-409, error-413, server-error
(docs/scenarios.md). One request can pick its own with 'Prefer: scenario=NAME' or force a
status with 'Prefer: code=503'.

Control API (spec/control-api.yaml): GET /__mock/scenarios, PUT /__mock/scenario,
POST /__mock/reset, GET /__mock/jobs, POST /__mock/jobs/{id}/advance,
PUT /__mock/jobs/{id}/state, GET /__mock/journal, GET /__mock/coverage. The inspector page:
/__mock/ui. Coverage and client findings: docs/coverage.md, docs/client-findings.md.

Examples:
  evidence-harness mock
  evidence-harness mock --port 8080 --scenario slow-pass
  evidence-harness mock --scenario ./my-scenario.yaml --seed 42
  evidence-harness mock --scenario ./my-scenario.yaml --watch
  evidence-harness mock --tls-cert ./localhost.pem --tls-key ./localhost-key.pem
  evidence-harness mock --store redis://127.0.0.1:6379 --port 4011   # one of several replicas
  curl -s localhost:4010/health

Config file (evidence-harness.config.yaml; JSON Schema: evidence-harness.config.schema.json):
  mock:
    port: 4010
    scenario: ./scenarios/checkout.yaml
    watch: true
    control-origin: [http://localhost:5173]
`;

export const mockCommand: Command = {
  name: 'mock',
  summary: 'serve a stateful mock of the contract (default http://127.0.0.1:4010)',
  help,
  async run(argv, io) {
    const config = await loadConfig({ cwd: process.cwd(), ...explicitConfig(argv) });
    const args = withConfigArguments({
      config: config?.mockArguments ?? [],
      commandLine: withNegativeValues(argv),
      listOptions: ['control-origin', 'coverage-report'],
    });
    const { values } = parseCommandLine(() =>
      parseArgs({
        args,
        strict: true,
        options: {
          port: { type: 'string' },
          host: { type: 'string' },
          scenario: { type: 'string' },
          seed: { type: 'string' },
          'base-path': { type: 'string' },
          spec: { type: 'string' },
          'control-token': { type: 'string' },
          'control-origin': { type: 'string', multiple: true },
          'coverage-report': { type: 'string', multiple: true },
          'max-jobs': { type: 'string' },
          'max-job-bytes': { type: 'string' },
          'max-key-bytes': { type: 'string' },
          'max-journal-bytes': { type: 'string' },
          'max-scenario-bytes': { type: 'string' },
          quiet: { type: 'boolean', default: false },
          watch: { type: 'boolean', default: false },
          'tls-cert': { type: 'string' },
          'tls-key': { type: 'string' },
          config: { type: 'string' },
          store: { type: 'string' },
          'store-namespace': { type: 'string' },
        },
      }),
    );
    const port = integerOption({ value: values.port, name: 'port', min: 0, max: 65535 }) ?? 4010;
    // An empty token would be no token at all: refused rather than silently ignored.
    if (values['control-token'] !== undefined && values['control-token'].trim() === '') {
      throw new UsageError(
        '--control-token is empty. Pass a token (any string you choose, sent back as the X-Mock-Token header), or leave --control-token out: a token is then generated when --host is not loopback.',
      );
    }
    const seed = integerOption({ value: values.seed, name: 'seed', min: 0, max: 2 ** 32 - 1 });
    let basePath: string;
    try {
      basePath = normalizeBasePath(values['base-path']);
    } catch (error) {
      throw new UsageError(`--${(error as Error).message.replace('basePath', 'base-path')}.`);
    }
    const controlOrigins = (values['control-origin'] ?? []).map((origin) => {
      try {
        return normalizeControlOrigin(origin);
      } catch (error) {
        throw new UsageError(`--control-origin: ${(error as Error).message}.`);
      }
    });
    const limits = limitsOf(values);
    const coverageTargets = (values['coverage-report'] ?? []).map(parseCoverageReportOption);
    const choice = values.scenario ?? 'default';
    if (values.watch && !isScenarioPath(choice))
      throw new UsageError(
        `--watch reloads a scenario file, and --scenario is ${values.scenario === undefined ? 'not given' : `the shipped scenario '${choice}'`}. Pass --scenario ./your-scenario.yaml with --watch.`,
      );
    const spec = values.spec === undefined ? undefined : await specContract(values.spec);
    const tls = await tlsFiles(values['tls-cert'], values['tls-key']);
    const storeUrl = storeOption(values.store ?? (process.env.EVIDENCE_HARNESS_STORE || undefined));
    // Redis keeps the count and the time to live; a byte budget is Redis's maxmemory (docs/scale-out.md).
    const byteFlags = (['max-job-bytes', 'max-key-bytes'] as const).filter((name) => values[name] !== undefined);
    if (storeUrl !== undefined && byteFlags.length > 0) {
      io.stderr(
        diagnostic(
          `mock: ${byteFlags.map((name) => `--${name}`).join(' and ')} bound memory in this process and have no effect with --store; Redis keeps --max-jobs and the time to live, and its own maxmemory bounds its bytes (docs/scale-out.md).`,
        ),
      );
    }
    if (values['store-namespace'] !== undefined && storeUrl === undefined)
      throw new UsageError('--store-namespace names keys in a shared store; give --store redis://HOST:PORT as well.');
    // Request lines go out in batches; every other message flushes them first, to keep the order.
    const lines = values.quiet ? undefined : createLineBuffer({ write: io.stdout });
    const say = (text: string) => {
      lines?.flush();
      io.stdout(text);
    };
    let engine: ReturnType<typeof createMockEngine>;
    let shared: SharedState | undefined;
    // The file as read at start: --watch holds later reads to the same place (A-27).
    let scenarioFile: LoadedScenarioFile | undefined;
    try {
      scenarioFile = isScenarioPath(choice) ? await readScenarioFile(choice) : undefined;
      const scenario = scenarioFile?.scenario ?? choice;
      if (storeUrl !== undefined) shared = await openStore({ url: storeUrl, namespace: values['store-namespace'], limits, say });
      engine = createMockEngine({
        scenario,
        ...(seed === undefined ? {} : { seed }),
        ...(basePath ? { basePath } : {}),
        ...(spec ? { spec: spec.contract } : {}),
        ...(Object.keys(limits).length > 0 ? { limits } : {}),
        ...shared?.engineOptions,
      });
      // A replica adopts the scenario the others have in force before it answers anyone.
      await engine.control.synced();
    } catch (error) {
      await shared?.close();
      if (error instanceof StoreUnavailableError) {
        io.stderr(diagnostic(`mock: --store: ${error.message}. Start Redis, or check the URL.`));
        return exitCodes.failed;
      }
      if (error instanceof ScenarioFileError) {
        io.stderr(diagnostic(`mock: --scenario: ${error.message}`));
        return exitCodes.usage;
      }
      if (error instanceof ScenarioError) {
        io.stderr(
          diagnostic(
            `${error.message}\nFix the file: scenarios/scenario.schema.json in this package is its JSON Schema, and 'evidence-harness mock --help' lists the shipped scenarios.`,
          ),
        );
        return exitCodes.usage;
      }
      if ((error as Error).name === 'ControlError') throw new UsageError(`--scenario: ${(error as Error).message}.`);
      throw error;
    }
    let server: Awaited<ReturnType<typeof startMockServer>>;
    try {
      server = await startMockServer({
        engine,
        // The command made this engine for this server alone: closing ends its latency waits.
        closeEngine: true,
        // This process is the mock alone: give back a flood's memory after a reset (memory-release).
        releaseMemoryAfterReset: true,
        port,
        ...(values.host ? { host: values.host } : {}),
        ...(values['control-token'] ? { controlToken: values['control-token'] } : {}),
        ...(controlOrigins.length > 0 ? { controlOrigins } : {}),
        ...(lines ? { log: lines.add } : {}),
        ...(tls ? { tls } : {}),
        ...(shared ? { sharedState: shared } : {}),
      });
    } catch (error) {
      await shared?.close();
      const code = (error as NodeJS.ErrnoException).code;
      const reason = code === 'EADDRINUSE' ? `port ${port} is already in use (try --port 0 or another port)` : (error as Error).message;
      io.stderr(diagnostic(`mock: cannot listen: ${reason}.`));
      return exitCodes.failed;
    }
    const base = `${server.url}${basePath}`;
    const watcher = values.watch
      ? watchScenarioFile({
          file: choice,
          engine,
          ...(scenarioFile ? { resolvedPath: scenarioFile.resolvedPath, startText: scenarioFile.text } : {}),
          onReload: ({ scenario, inForce }) =>
            say(
              `scenario reloaded from ${choice}: ${scenario}${inForce ? ' (in force)' : ' (another scenario, chosen since, stays in force)'}\n`,
            ),
          onError: (message) => {
            lines?.flush();
            io.stderr(diagnostic(`mock: --watch: ${message}`));
          },
        })
      : undefined;
    say(
      [
        ...(config ? [`options from ${config.file} (flags given on the command line win)`] : []),
        `evidence-harness mock listening on ${base} (scenario: ${engine.control.scenario}${seed === undefined ? '' : `, seed: ${seed}`})`,
        ...(spec ? specLines(spec) : []),
        ...(shared ? [`state shared in ${shared.where} (namespace ${values['store-namespace'] ?? 'evidence-harness'})`] : []),
        ...(server.controlToken ? [`control API token (X-Mock-Token): ${server.controlToken}`] : []),
        ...(watcher ? [`watching ${choice}: saving it reloads the scenario`] : []),
        `try: curl -s ${base}/health`,
        `inspector: ${server.url}/__mock/ui`,
        'press Ctrl+C to stop',
        '',
      ].join('\n'),
    );
    const { signal, stopListening } = await untilStopSignal({ beforeExit: () => lines?.flush() });
    // Nothing should keep a stopped mock alive; if something does (a socket that will not close,
    // a timer of the engine), it must not keep the process running past this deadline either.
    setTimeout(() => {
      lines?.flush();
      process.exit(exitCodes.ok);
    }, shutdown.graceMs + shutdown.exitAfterMs).unref();
    say(`${signal}: stopping… (${signal} again exits at once)\n`);
    watcher?.close();
    await server.close({ graceMs: shutdown.graceMs });
    lines?.flush();
    const report = engine.control.coverage();
    if (!values.quiet) io.stdout(coverageSummary(report));
    try {
      for (const path of await writeCoverageReports({ report, targets: coverageTargets, cwd: process.cwd() }))
        io.stdout(`coverage report written: ${path}\n`);
    } catch (error) {
      io.stderr(diagnostic(`mock: --coverage-report: cannot write: ${(error as Error).message}`));
      stopListening();
      return exitCodes.failed;
    }
    stopListening();
    return exitCodes.ok;
  },
};

/** `--store`'s URL, checked; a password in it is never repeated in a message. */
function storeOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const shown = redactedUrl(value).startsWith('(') ? 'something that is no URL' : `'${redactedUrl(value).slice(0, 100)}'`;
  if (!isRedisUrl(value)) {
    throw new UsageError(`--store takes a Redis URL such as redis://127.0.0.1:6379 or rediss://user:password@host:6380/0; got ${shown}.`);
  }
  let url: URL;
  try {
    url = new URL(value);
    decodeURIComponent(url.password);
    decodeURIComponent(url.username);
  } catch {
    throw new UsageError(`--store: ${shown} is not a well-formed URL (a password with '%', '@' or '/' in it must be percent-encoded).`);
  }
  if (url.hostname === '') throw new UsageError(`--store: ${shown} names no host; give redis://HOST:PORT.`);
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/[0-9]{1,5}$/.test(url.pathname)) {
    throw new UsageError(`--store: the path of ${shown} must be a database number, such as /0.`);
  }
  return value;
}

async function openStore(options: {
  url: string;
  namespace: string | undefined;
  limits: EngineLimits;
  say: (text: string) => void;
}): Promise<SharedState> {
  const { openSharedState, checkNamespace } = await import('../server/redis/shared-state.js');
  if (options.namespace !== undefined) {
    try {
      checkNamespace(options.namespace);
    } catch (error) {
      throw new UsageError(`--store-namespace: ${(error as Error).message}.`);
    }
  }
  return openSharedState({
    url: options.url,
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    ...(Object.keys(options.limits).length > 0 ? { limits: options.limits } : {}),
    log: (line) => options.say(`${line}\n`),
  });
}

/** `--config FILE` (or `--config=FILE`) from the command line, read before the rest is parsed. */
function explicitConfig(argv: readonly string[]): { explicit?: string } {
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    if (argument === '--config') {
      const file = argv[index + 1];
      if (file === undefined || file.startsWith('--'))
        throw new UsageError('--config needs a file: --config ./evidence-harness.config.yaml.');
      return { explicit: file };
    }
    if (argument.startsWith('--config=')) return { explicit: argument.slice('--config='.length) };
  }
  return {};
}

/** The certificate and key of --tls-cert and --tls-key, read; both or neither. */
async function tlsFiles(certFile: string | undefined, keyFile: string | undefined): Promise<{ cert: string; key: string } | undefined> {
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined)
    throw new UsageError(
      `--${certFile === undefined ? 'tls-key' : 'tls-cert'} needs --${certFile === undefined ? 'tls-cert' : 'tls-key'} too: HTTPS takes a certificate and its private key (PEM files).`,
    );
  const read = async (flag: string, file: string) => {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(`--${flag}: ${code === 'ENOENT' ? 'file not found' : `cannot be read (${code})`}: ${file}.`);
    }
  };
  const tls = { cert: await read('tls-cert', certFile), key: await read('tls-key', keyFile) };
  if (!tls.cert.includes('-----BEGIN CERTIFICATE-----'))
    throw new UsageError(`--tls-cert: ${certFile} holds no PEM certificate (no '-----BEGIN CERTIFICATE-----' line).`);
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(tls.key))
    throw new UsageError(`--tls-key: ${keyFile} holds no PEM private key (no '-----BEGIN … PRIVATE KEY-----' line).`);
  return tls;
}

/**
 * `--port -1` as `--port=-1`: node:util's parseArgs reads a value starting with '-' as an
 * option and refuses the line with its own wording; joined, the value reaches the option's
 * check, which says what range is allowed.
 */
function withNegativeValues(argv: readonly string[]): string[] {
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    const next = argv[index + 1];
    if (/^--[a-z-]+$/.test(argument) && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${argument}=${next}`);
      index += 1;
    } else {
      joined.push(argument);
    }
  }
  return joined;
}

/** The engine's byte and entry budgets given on the command line (engine names, A-16, A-18). */
function limitsOf(values: Record<string, string | boolean | string[] | undefined>): EngineLimits {
  const text = (name: string) => values[name] as string | undefined;
  const size = (name: string) => sizeOption({ value: text(name), name, min: 1024, max: maxBudgetBytes });
  const chosen: Record<string, number | undefined> = {
    maxJobs: integerOption({ value: text('max-jobs'), name: 'max-jobs', min: 1, max: 100_000_000 }),
    maxJobBytes: size('max-job-bytes'),
    maxIdempotencyKeyBytes: size('max-key-bytes'),
    maxJournalBytes: size('max-journal-bytes'),
    maxScenarioRegistryBytes: size('max-scenario-bytes'),
  };
  return Object.fromEntries(Object.entries(chosen).filter(([, value]) => value !== undefined)) as EngineLimits;
}

/** `--spec`: the document read as the runner reads it, then made the engine's contract. */
async function specContract(source: string): Promise<{ source: string; contract: EngineContract }> {
  const problem = specFileProblem(source);
  if (problem) throw new UsageError(`--spec: ${problem}; ${specAdvice}`);
  try {
    const document = await loadContract({ source });
    return { source, contract: contractFromDocument(document.document) };
  } catch (error) {
    throw new UsageError(`--spec: ${(error as Error).message.replace(/\.?$/, '.')}`);
  }
}

/** What the start-up says about a document the mock follows: its version, and what it serves differently. */
function specLines(spec: { source: string; contract: EngineContract }): string[] {
  const { contract } = spec;
  return [
    `contract: ${spec.source} (version ${contract.version})`,
    ...(contract.exampleOperations.size > 0 ? [`served from examples: ${[...contract.exampleOperations.keys()].join(', ')}`] : []),
    ...(contract.missing.length > 0 ? [`not served (the document lacks them): ${contract.missing.join(', ')}`] : []),
  ];
}
