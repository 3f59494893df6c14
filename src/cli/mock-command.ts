/**
 * @module cli/mock-command
 * `evidence-harness mock`: the stateful mock of the contract on a local port, for client
 * development.
 */
import type { Scrubber } from '../contract/secrets.js';
import type { AddressPolicy } from '../documents/index.js';
import { readRegularFile, UserFileError } from '../documents/regular-file.js';
import { specFileProblem } from '../documents/spec-file.js';
import { buildEngineContract, bundledEngineContract, type EngineContract } from '../engine/engine-contract.js';
import { createMockEngine, type EngineLimits, normalizeBasePath, ScenarioError, StoreUnavailableError } from '../engine/index.js';
import { ProfileFileError, readProfileFile } from '../profile/load.js';
import type { ServerProfile } from '../profile/profile.js';
import { normalizeControlOrigin } from '../server/control-guard.js';
import { startMockServer } from '../server/mock-server.js';
import type { SharedState } from '../server/redis/shared-state.js';
// The URL helpers only: the Redis client itself is loaded when --store is given.
import { isRedisUrl, redactedUrl } from '../server/redis/store-url.js';
import { isScenarioPath, type LoadedScenarioFile, readScenarioFile, ScenarioFileError } from '../server/scenario-file.js';
import { watchScenarioFile } from '../server/scenario-watch.js';
import { createLineBuffer } from './buffered-lines.js';
import { type Command, diagnostic, exitCodes, UsageError } from './command.js';
import { loadConfig, withConfigArguments } from './config-file.js';
import { type CoverageReportTarget, coverageReportTargets, coverageSummary, writeCoverageReports } from './coverage-report.js';
import { memorySection, mockDefaults, mockOptions } from './mock-options.js';
import { listOptionNames, type OptionValues, optionsHelp, parseOptions } from './options.js';
import { type PactOutTarget, pactOutOption, writePactFile } from './pact-out.js';
import { addressPolicyFrom, specAdvice } from './spec-file.js';
import { untilStopSignal } from './stop-signals.js';

/**
 * After a stop signal: how long in-flight requests may take to finish before their connections
 * are cut, and how long after that anything left may keep the process alive. Together under
 * the 5 s a supervisor should have to wait.
 */
const shutdown = { graceMs: 3000, exitAfterMs: 1000 } as const;

const help = `Usage: evidence-harness mock [options]

Serves a stateful mock of the Evidence Evaluation and Verification Service: jobs that move
from QUEUED to a final state as you poll, idempotency that bites (409), the 400/413 split,
and scripted failures. The same engine runs inside the MSW handlers.

Options:
${optionsHelp(mockOptions)}

Memory bounds, oldest entries evicted first (SIZE: bytes, or with a unit: 512KiB, 64MiB, 1GiB):
${optionsHelp(mockOptions, { section: memorySection })}
On Linux with glibc and Node 22.15 or later, the mock restarts itself once at launch (same PID)
with MALLOC_MMAP_THRESHOLD_=32768, so that memory freed after a flood of large requests goes back
to the system; EVIDENCE_HARNESS_MALLOC_TUNING=off, or your own MALLOC_MMAP_THRESHOLD_, prevents it.

Stopping: SIGINT (Ctrl+C), SIGTERM or SIGHUP stops it gracefully: no new connections, requests
waiting in a scenario's latency are answered at once, the others get ${shutdown.graceMs / 1000} s to finish, then it
writes its reports and exits 0 (within ${(shutdown.graceMs + shutdown.exitAfterMs) / 1000} s). A second signal exits at once: 130 after
SIGINT, 143 after SIGTERM, 129 after SIGHUP. It stops the same way when the process that started
it ends, or when npm running it (npx, npm run) is signalled, SIGKILL included, and writes its reports.

Scenarios shipped: default, slow-pass, fail, indeterminate, job-failed, manual, by-operation-id,
flaky-503, rate-limited, error-400, error-404, error-409, error-413, server-error
(docs/scenarios.md). One request can pick its own with 'Prefer: scenario=NAME' or force a
status with 'Prefer: code=503'.

Control API (spec/control-api.yaml): GET /__mock/scenarios, GET and PUT /__mock/scenario,
POST /__mock/reset, GET /__mock/jobs, POST /__mock/jobs/{id}/advance,
PUT /__mock/jobs/{id}/state, GET /__mock/journal, GET /__mock/coverage, GET /__mock/pact,
POST /__mock/provider-states. The inspector page: /__mock/ui. Coverage and client findings:
docs/coverage.md, docs/client-findings.md. Pact: docs/pact.md.

Examples:
  evidence-harness mock
  evidence-harness mock --port 8080 --scenario slow-pass
  evidence-harness mock --scenario ./my-scenario.yaml --seed 42
  evidence-harness mock --scenario ./my-scenario.yaml --watch
  evidence-harness mock --tls-cert ./localhost.pem --tls-key ./localhost-key.pem
  evidence-harness mock --store redis://127.0.0.1:6379 --port 4011   # one of several replicas
  evidence-harness mock --pact-out pacts/web-evidence.json --pact-consumer web
  curl -s localhost:4010/health

Config file (evidence-harness.config.yaml; JSON Schema: evidence-harness.config.schema.json),
the same options under the flags' names, but --config:
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
  optionTables: { mock: mockOptions },
  async run(argv, io) {
    const config = await loadConfig({ cwd: process.cwd(), ...explicitConfig(argv) });
    const args = withConfigArguments({
      config: config?.mockArguments ?? [],
      commandLine: argv,
      listOptions: listOptionNames(mockOptions),
    });
    const { values } = parseOptions(mockOptions, args);
    const port = values.port ?? mockDefaults.port;
    // An empty token would be no token at all: refused rather than silently ignored.
    if (values['control-token'] !== undefined && values['control-token'].trim() === '') {
      throw new UsageError(
        '--control-token is empty. Pass a token (any string you choose, sent back as the X-Mock-Token header), or leave --control-token out: a token is then generated when --host is not loopback.',
      );
    }
    const seed = values.seed;
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
    const coverageTargets = await coverageReportTargets(values['coverage-report'] ?? []);
    const pactTarget = await pactOutOption(values);
    const choice = values.scenario ?? 'default';
    if (values.watch && !isScenarioPath(choice))
      throw new UsageError(
        `--watch reloads a scenario file, and --scenario is ${values.scenario === undefined ? 'not given' : `the shipped scenario '${choice}'`}. Pass --scenario ./your-scenario.yaml with --watch.`,
      );
    const spec =
      values.spec === undefined
        ? undefined
        : await specContract({
            source: values.spec,
            allowRemoteRefs: values['allow-remote-refs'] === true,
            addressPolicy: addressPolicyFrom(values),
          });
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
    let profile: ServerProfile | undefined;
    try {
      scenarioFile = isScenarioPath(choice) ? await readScenarioFile(choice) : undefined;
      profile = values.profile === undefined ? undefined : await readProfileFile(values.profile);
      const scenario = scenarioFile?.scenario ?? choice;
      if (storeUrl !== undefined) {
        const contract = (spec?.contract ?? bundledEngineContract).fingerprint;
        shared = await openStore({ url: storeUrl, namespace: values['store-namespace'], limits, contract, say });
      }
      engine = createMockEngine({
        scenario,
        ...(seed === undefined ? {} : { seed }),
        ...(basePath ? { basePath } : {}),
        ...(spec ? { spec: spec.contract } : {}),
        ...(profile ? { profile } : {}),
        ...(Object.keys(limits).length > 0 ? { limits } : {}),
        // A session evicted or expired (A-60) is worth a line even with --quiet.
        log: (line) => say(`${line}\n`),
        ...shared?.engineOptions,
      });
      // A replica adopts the scenario the others have in force before it answers anyone.
      await engine.control.synced();
    } catch (error) {
      await shared?.close();
      return startupFailure(error, io);
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
        ...(profile ? [`profile: ${profile.source} (${profile.declared.size} entries declared; GET /__mock/profile shows it)`] : []),
        ...(shared ? [`state shared in ${shared.where} (namespace ${values['store-namespace'] ?? mockDefaults.storeNamespace})`] : []),
        ...(server.controlToken ? [`control API token (X-Mock-Token): ${server.controlToken}`] : []),
        ...(watcher ? [`watching ${choice}: saving it reloads the scenario`] : []),
        `try: curl -s ${base}/health`,
        `inspector: ${server.url}/__mock/ui`,
        'press Ctrl+C to stop',
        '',
      ].join('\n'),
    );
    const { signal, cause, stopListening } = await untilStopSignal({ beforeExit: () => lines?.flush() });
    // Nothing should keep a stopped mock alive; if something does (a socket that will not close,
    // a timer of the engine), it must not keep the process running past this deadline either.
    setTimeout(() => {
      lines?.flush();
      process.exit(exitCodes.ok);
    }, shutdown.graceMs + shutdown.exitAfterMs).unref();
    say(`${cause}: stopping… (${signal} again exits at once)\n`);
    watcher?.close();
    await server.close({ graceMs: shutdown.graceMs });
    lines?.flush();
    const written = await writeStopReports({
      control: engine.control,
      scrubber: engine.scrubber,
      quiet: values.quiet === true,
      coverageTargets,
      pactTarget,
      io,
    });
    stopListening();
    return written;
  },
};

/** What `mock` writes once stopped: the coverage summary, --coverage-report and --pact-out files, of every session. */
async function writeStopReports(options: {
  control: ReturnType<typeof createMockEngine>['control'];
  /** The credentials the engine saw: taken out of the summary, the reports and the pact (A-10). */
  scrubber: Scrubber | undefined;
  quiet: boolean;
  coverageTargets: CoverageReportTarget[];
  pactTarget: PactOutTarget | undefined;
  io: Parameters<Command['run']>[1];
}): Promise<number> {
  const { control, io, pactTarget } = options;
  // Every session's traffic, those ended before exit included (A-60), scrubbed of every credential seen (A-10).
  const all = control.coverageOfAllSessions();
  const report = options.scrubber ? options.scrubber.scrubDeep(all) : all;
  if (!options.quiet) io.stdout(coverageSummary(report));
  try {
    for (const path of await writeCoverageReports({ report, targets: options.coverageTargets, cwd: process.cwd() }))
      io.stdout(`coverage report written: ${path}\n`);
  } catch (error) {
    io.stderr(diagnostic(`mock: ${(error as Error).message}`));
    return exitCodes.failed;
  }
  if (pactTarget) {
    try {
      io.stdout(`pact written: ${await writePactFile({ control, target: pactTarget, cwd: process.cwd(), scrubber: options.scrubber })}\n`);
    } catch (error) {
      io.stderr(diagnostic(`mock: ${(error as Error).message}`));
      return exitCodes.failed;
    }
  }
  return exitCodes.ok;
}

/** The exit code, and the message, of a start that failed before the port opened; anything else is thrown on. */
function startupFailure(error: unknown, io: Parameters<Command['run']>[1]): number {
  if (error instanceof StoreUnavailableError) {
    io.stderr(diagnostic(`mock: --store: ${error.message}. Start Redis, or check the URL.`));
    return exitCodes.failed;
  }
  if ((error as Error).name === 'ContractMismatchError') {
    io.stderr(diagnostic(`mock: --store: ${(error as Error).message}`));
    return exitCodes.usage;
  }
  if (error instanceof ProfileFileError) {
    io.stderr(diagnostic(`mock: --profile: ${error.message}`));
    return exitCodes.usage;
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
  /** The served contract's fingerprint: replicas of one namespace must serve the same. */
  contract: string;
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
    contract: options.contract,
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
  // Through the document loader's file reader: a FIFO or a device named by mistake is refused,
  // not waited on for ever, and a PEM file is far below its size bound.
  const read = async (flag: string, file: string) => {
    try {
      return (await readRegularFile({ path: file })).text;
    } catch (error) {
      if (error instanceof UserFileError) throw new UsageError(`--${flag}: ${error.message}.`);
      throw error;
    }
  };
  const tls = { cert: await read('tls-cert', certFile), key: await read('tls-key', keyFile) };
  if (!tls.cert.includes('-----BEGIN CERTIFICATE-----'))
    throw new UsageError(`--tls-cert: ${certFile} holds no PEM certificate (no '-----BEGIN CERTIFICATE-----' line).`);
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(tls.key))
    throw new UsageError(`--tls-key: ${keyFile} holds no PEM private key (no '-----BEGIN … PRIVATE KEY-----' line).`);
  return tls;
}

/** The engine's byte and entry budgets given on the command line (engine names, A-16, A-18). */
function limitsOf(values: OptionValues<typeof mockOptions>): EngineLimits {
  const chosen: Record<string, number | undefined> = {
    maxJobs: values['max-jobs'],
    maxJobBytes: values['max-job-bytes'],
    maxIdempotencyKeyBytes: values['max-key-bytes'],
    maxJournalBytes: values['max-journal-bytes'],
    maxScenarioRegistryBytes: values['max-scenario-bytes'],
  };
  return Object.fromEntries(Object.entries(chosen).filter(([, value]) => value !== undefined)) as EngineLimits;
}

/**
 * `--spec`: the document read as the runner reads it (the one loader, src/documents: bounded,
 * `$ref`s by the policy of A-31), then made the engine's contract. `source` is its display
 * name: a URL's credentials scrubbed, as in every line the mock prints.
 */
async function specContract(options: {
  source: string;
  allowRemoteRefs: boolean;
  addressPolicy: AddressPolicy;
}): Promise<{ source: string; contract: EngineContract }> {
  const problem = specFileProblem(options.source);
  if (problem) throw new UsageError(`--spec: ${problem}; ${specAdvice}`);
  try {
    // Loaded only for --spec: swagger-parser would add its load time to every start.
    const { loadContract } = await import('../openapi/document.js');
    const document = await loadContract({
      source: options.source,
      ...(options.allowRemoteRefs ? { allowRemoteRefs: true } : {}),
      addressPolicy: options.addressPolicy,
    });
    return { source: document.source, contract: await buildEngineContract(document.document) };
  } catch (error) {
    // A document refused by the engine (over a budget, a cyclic example) may name a URL too.
    const { displaySource } = await import('../documents/index.js');
    const message = (error as Error).message.split(options.source).join(displaySource(options.source));
    throw new UsageError(`--spec: ${message.replace(/\.?$/, '.')}`);
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
