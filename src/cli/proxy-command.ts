/**
 * @module cli/proxy-command
 * `evidence-harness proxy --upstream URL`: a validating proxy in front of a real implementation
 * (src/proxy). It logs one line per exchange naming its violations (and, with `--profile`, the
 * profile entries the upstream drifted from), and writes its JSON report when stopped
 * (SIGINT/SIGTERM/SIGHUP) and on `GET /__proxy/report` at any time.
 */
import { renderHtml } from '../conformance/report/html-report.js';
import { renderJunit } from '../conformance/report/junit-report.js';
import { Scrubber } from '../conformance/secrets.js';
import { specFileProblem } from '../documents/spec-file.js';
import { builtinScenarios } from '../engine/builtin-scenarios.js';
import { type Scenario, ScenarioError } from '../engine/index.js';
import { OutputFileError, writeOutputFile } from '../files/output-file.js';
import { InvalidSpecError } from '../openapi/document.js';
import { ProfileLearning } from '../proxy/profile-learning.js';
import { proxyDefaults, proxyScenarioProblem, type RunningProxy, startProxyServer } from '../proxy/proxy-server.js';
import { isScenarioPath, loadScenarioFile } from '../server/scenario-file.js';
import { createLineBuffer } from './buffered-lines.js';
import { type Command, diagnostic, exitCodes, formatSize, UsageError } from './command.js';
import { checkOutputAtStart, fileProblems, readProfileOption, tlsOptions } from './file-options.js';
import { type OptionTable, optionsHelp, parseOptions } from './options.js';
import { specAdvice } from './spec-file.js';
import { untilStopSignal } from './stop-signals.js';
import { schemeOf, writeTrafficProfile } from './write-profile.js';

/** The command's options, written once: the parser, --help and docs/cli.md come from here. */
export const proxyOptions = {
  upstream: { kind: 'string', value: 'URL', help: 'the server to forward to (required), e.g. http://127.0.0.1:8080' },
  port: { kind: 'integer', value: 'N', min: 0, max: 65535, help: 'port to listen on (default 4010; 0 picks a free one)' },
  host: { kind: 'string', value: 'HOST', help: 'address to listen on (default 127.0.0.1)' },
  spec: { kind: 'string', value: 'FILE', help: 'the OpenAPI 3.1 document (default: the bundled spec/openapi.yaml)' },
  errors: {
    kind: 'boolean',
    help: 'answer a request that breaks the contract 400 (it never reaches the upstream) and replace an answer that breaks it with 502, both with an Error body naming the rule',
  },
  scenario: {
    kind: 'string',
    value: 'NAME|FILE',
    help: 'inject faults into the real traffic: a shipped scenario (flaky-503, rate-limited, server-error, error-400, error-404, error-409, error-413) or a scenario file with only faults and latencyMs; an injected answer never reaches the upstream and is marked in the log and the report',
  },
  seed: { kind: 'integer', value: 'N', min: 0, max: 2 ** 32 - 1, help: "seed the fractions of the scenario's faults" },
  report: {
    kind: 'string',
    value: 'FORMAT=FILE',
    multiple: true,
    help: 'write a report when stopped: json (violations, with their side, and recent exchanges), junit or html (the conformance runner’s formats); repeatable',
  },
  record: {
    kind: 'string',
    value: 'FILE.har',
    help: 'write the exchanges (the last 10,000, 64 MiB in all) as a HAR 1.2 cassette when stopped, credentials scrubbed; exit 1 if it cannot be written',
  },
  ca: { kind: 'string', value: 'FILE', help: 'trust this PEM certificate (a private CA, a self-signed upstream)' },
  insecure: { kind: 'boolean', help: 'do not check the https upstream’s certificate (encrypted, not authenticated)' },
  'credential-header': {
    kind: 'string',
    value: 'NAME',
    multiple: true,
    help: 'a header whose values are credentials, besides the defaults (authorization, cookie, set-cookie, api-key, x-api-key, x-auth-token, …): its values are scrubbed from the log, reports and cassette; repeatable',
  },
  timeout: {
    kind: 'duration',
    value: 'DURATION',
    bareUnit: 'ms',
    minMs: 1,
    maxMs: 600_000,
    help: `how long the upstream may take to answer (default ${proxyDefaults.timeoutMs / 1000}s; a bare number is ms)`,
  },
  'max-response-bytes': {
    kind: 'size',
    value: 'SIZE',
    min: 1024,
    max: 1024 ** 3,
    help: `the largest answer passed back (default ${formatSize(proxyDefaults.maxResponseBytes)})`,
  },
  profile: {
    kind: 'string',
    value: 'FILE',
    help: "watch the traffic for drift from a server profile (docs/drift.md): an answer departing from a declared entry is marked 'drift:ENTRY' in the log, a Profile-Drift header and the reports, once per entry with its count",
  },
  'fail-on-drift': {
    kind: 'boolean',
    help: 'exit 1 when stopped if any exchange drifted from the --profile (for a CI step)',
  },
  quiet: { kind: 'boolean', help: 'no per-exchange log lines' },
  'write-profile': {
    kind: 'string',
    value: 'FILE',
    path: 'file',
    help: "learn the server's profile from the traffic (no request of its own) and write it to FILE (YAML) when stopped, each entry with what was seen and how often, and the entries the traffic did not decide listed as not learnt; FILE is checked at start",
  },
} as const satisfies OptionTable;

const help = `Usage: evidence-harness proxy --upstream URL [options]

Forwards every request to the upstream (a development or staging server) and every answer back,
and judges each exchange against the contract as it passes: the client's request by the request
rules (the client's fault), the upstream's answer by the conformance runner's own checks (the
server's fault), statefully across exchanges (a replay that makes a new job, a missing 409, a job
moving backwards, another caller's job visible). Answers go back unchanged, with a
Contract-Violations header naming the rules the exchange broke.

Options:
${optionsHelp(proxyOptions)}

The report is also served at GET /__proxy/report while the proxy runs.
On Linux with glibc and Node 22.15 or later, the proxy restarts itself once at launch (same PID)
with MALLOC_MMAP_THRESHOLD_=32768, as the mock does (EVIDENCE_HARNESS_MALLOC_TUNING=off prevents it).

Examples:
  evidence-harness proxy --upstream http://127.0.0.1:8080
  evidence-harness proxy --upstream https://staging.example --port 4010 --errors --report json=reports/proxy.json
  evidence-harness proxy --upstream https://staging.example --scenario flaky-503 --seed 7
  evidence-harness proxy --upstream https://staging.example --write-profile staging.profile.yaml
  evidence-harness proxy --upstream https://staging.example --profile server-profile.yaml --fail-on-drift --report junit=reports/drift.xml
`;

/** `--upstream`, checked: an http(s) URL without credentials (each client's own pass through). */
function checkedUpstream(value: string | undefined): URL {
  if (value === undefined)
    throw new UsageError('--upstream is required: the URL of the server to forward to, e.g. --upstream http://127.0.0.1:8080.');
  let upstream: URL;
  try {
    upstream = new URL(value);
  } catch {
    throw new UsageError(`--upstream is not a URL: '${value.slice(0, 200)}'. Give one such as http://127.0.0.1:8080.`);
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:')
    throw new UsageError(`--upstream must be an http:// or https:// URL, got ${upstream.protocol}.`);
  if (upstream.username || upstream.password)
    throw new UsageError('--upstream must not carry a user name or password: the proxy passes each client’s own Authorization through.');
  return upstream;
}

/** What the proxy writes when it stops (the reports, the cassette, the learnt profile); false when any could not be written. */
async function writeAtStop(options: {
  proxy: RunningProxy;
  report: ReturnType<RunningProxy['report']>;
  reports: readonly { format: 'json' | 'junit' | 'html'; file: string }[];
  io: Parameters<Command['run']>[1];
  record?: string;
  profile?: { learning: ProfileLearning; file: string; source: string; scrub: (text: string) => string };
}): Promise<boolean> {
  const { proxy, report, io } = options;
  let written = true;
  for (const { format, file } of options.reports) {
    try {
      // JUnit and HTML are the runner's formats, rendered by its own reporters.
      const text =
        format === 'json'
          ? `${JSON.stringify(report, null, 2)}\n`
          : format === 'junit'
            ? renderJunit(proxy.conformanceReport())
            : renderHtml(proxy.conformanceReport());
      await writeOutputFile({ path: file, data: text, label: `--report ${format}=` });
      io.stderr(diagnostic(`proxy: wrote the ${format} report to ${file}`));
    } catch (error) {
      written = false;
      io.stderr(diagnostic(`proxy: cannot write ${file}: ${writeProblem(error)}`));
    }
  }
  if (options.record !== undefined) {
    try {
      await proxy.writeCassette(options.record);
      io.stderr(diagnostic(`proxy: wrote the HAR cassette to ${options.record}`));
    } catch (error) {
      written = false;
      io.stderr(diagnostic(`proxy: cannot write the cassette ${options.record}: ${writeProblem(error)}`));
    }
  }
  if (options.profile) {
    const { learning, file, source, scrub } = options.profile;
    try {
      await writeTrafficProfile({ learning, file, io, command: 'proxy', label: '--write-profile', source, scrub });
    } catch (error) {
      written = false;
      io.stderr(diagnostic(`proxy: cannot write the profile ${options.profile.file}: ${writeProblem(error)}`));
    }
  }
  return written;
}

export const proxyCommand: Command = {
  name: 'proxy',
  summary: 'a validating proxy: judges live traffic to a real server against the contract',
  help,
  optionTables: { proxy: proxyOptions },
  async run(argv, io) {
    const { values } = parseOptions(proxyOptions, argv);
    const upstream = checkedUpstream(values.upstream);
    const port = values.port ?? 4010;
    const timeoutMs = values.timeout;
    const maxResponseBytes = values['max-response-bytes'];
    const reports = (values.report ?? []).map((value) => {
      const match = /^(json|junit|html)=(.+)$/.exec(value);
      if (!match) throw new UsageError(`--report takes json=FILE, junit=FILE or html=FILE, got '${value}'.`);
      return { format: match[1] as 'json' | 'junit' | 'html', file: match[2]! };
    });
    for (const { format, file } of reports) await checkOutputAtStart({ path: file, label: `--report ${format}=` });
    if (values.record !== undefined) await checkOutputAtStart({ path: values.record, label: '--record' });
    const profileFile = values['write-profile'];
    if (profileFile === '') throw new UsageError('--write-profile needs a file name, for example --write-profile profile.yaml');
    if (profileFile !== undefined) await checkOutputAtStart({ path: profileFile, label: '--write-profile' });
    if (values.spec !== undefined) {
      const problem = specFileProblem(values.spec);
      if (problem) throw new UsageError(`--spec: ${problem}; ${specAdvice}`);
    }
    const tls = tlsOptions({ ca: values.ca, insecure: values.insecure });
    for (const name of values['credential-header'] ?? [])
      if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name))
        throw new UsageError(`--credential-header takes a header name, got '${name.slice(0, 60)}'.`);
    const seed = values.seed;
    let scenario: Scenario | undefined;
    if (values.scenario !== undefined) {
      try {
        scenario = isScenarioPath(values.scenario) ? await loadScenarioFile(values.scenario) : builtinScenarios().get(values.scenario);
      } catch (error) {
        if (error instanceof ScenarioError) {
          io.stderr(diagnostic(`proxy: --scenario: ${error.message}`));
          return exitCodes.usage;
        }
        throw error;
      }
      if (!scenario)
        throw new UsageError(`--scenario: no shipped scenario '${values.scenario}'; 'evidence-harness mock --help' lists them.`);
      const problem = proxyScenarioProblem(scenario);
      if (problem) throw new UsageError(`--scenario: ${problem}.`);
    }
    if (values['fail-on-drift'] && values.profile === undefined)
      throw new UsageError('--fail-on-drift needs --profile FILE: the profile the traffic is held to.');
    const profile = await readProfileOption(values.profile);
    // Passive learning (A-69) scrubs the profile with the proxy's one scrubber, which learns the traffic's credentials.
    // The profile's caller header (A-10.caller) is a credential header too, whatever its name.
    const scrubber = new Scrubber({
      credentialHeaders: [...(values['credential-header'] ?? []), ...(profile ? [profile.entries['A-10.caller'].header] : [])],
    });
    const learning =
      profileFile === undefined
        ? undefined
        : new ProfileLearning({ isCredentialHeader: (name) => scrubber.isCredentialHeader(name), schemeOf });
    const lines = values.quiet ? undefined : createLineBuffer({ write: io.stdout });
    const say = (text: string) => {
      lines?.flush();
      io.stdout(text);
    };
    let proxy: RunningProxy;
    try {
      proxy = await startProxyServer({
        upstream: upstream.href,
        port,
        ...(values.host ? { host: values.host } : {}),
        ...(values.spec ? { spec: values.spec } : {}),
        errors: values.errors,
        record: values.record !== undefined,
        ...(tls ? { tls } : {}),
        ...(values['credential-header'] ? { credentialHeaders: values['credential-header'] } : {}),
        scrubber,
        ...(learning ? { profileWatchers: [learning] } : {}),
        ...(scenario ? { scenario } : {}),
        ...(seed === undefined ? {} : { seed }),
        ...(profile ? { profile } : {}),
        limits: {
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
        },
        ...(lines ? { log: (line: string) => lines.add(line) } : {}),
      });
    } catch (error) {
      if (error instanceof InvalidSpecError) {
        io.stderr(diagnostic(`proxy: invalid OpenAPI document: ${error.message}`));
        return exitCodes.usage;
      }
      const code = (error as NodeJS.ErrnoException).code;
      io.stderr(
        diagnostic(
          `proxy: cannot listen: ${code === 'EADDRINUSE' ? `port ${port} is already in use (try --port 0)` : (error as Error).message}.`,
        ),
      );
      return exitCodes.failed;
    }
    say(
      [
        `evidence-harness proxy listening on ${proxy.url}, forwarding to ${upstream.href}${values.errors ? ' (--errors: violating exchanges are refused)' : ''}`,
        ...(scenario ? [`injecting the faults of scenario '${scenario.name}' (marked 'injected' in the log and report)`] : []),
        ...(profile ? [`watching for drift from the profile ${values.profile} (marked 'drift:ENTRY' in the log and report)`] : []),
        `report: GET ${proxy.url}/__proxy/report${reports.length > 0 ? `; written to ${reports.map((target) => target.file).join(', ')} when stopped` : ''}`,
        'press Ctrl+C to stop',
        '',
      ].join('\n'),
    );
    const { signal, cause, stopListening } = await untilStopSignal({ beforeExit: () => lines?.flush() });
    // The shutdown bound: reports, the cassette and the profile are written within it, or the exit says they were not.
    setTimeout(() => {
      io.stderr(diagnostic('proxy: the reports, the cassette or the profile were still being written after 4.5 s; stopped without them'));
      process.exit(exitCodes.failed);
    }, 4500).unref();
    say(`${cause}: stopping… (${signal} again exits at once)\n`);
    await proxy.close({ graceMs: 3000 });
    const report = proxy.report();
    const written = await writeAtStop({
      proxy,
      report,
      reports,
      io,
      ...(values.record === undefined ? {} : { record: values.record }),
      ...(learning && profileFile !== undefined
        ? { profile: { learning, file: profileFile, source: upstream.href, scrub: (text: string) => scrubber.scrub(text) } }
        : {}),
    });
    const request = report.violations.filter((violation) => violation.side === 'request').length;
    const drift = report.drift ?? [];
    say(
      `${report.exchanges} exchanges${report.injected > 0 ? ` (${report.injected} answered by the scenario's faults)` : ''}; ${request} request violation(s), ${report.violations.length - request} response violation(s)${profile ? `; ${report.driftCount ?? 0} exchange(s) drifted from the profile${drift.length > 0 ? ` (${drift.map((finding) => `${finding.entry} ×${finding.count}`).join(', ')})` : ''}` : ''}\n`,
    );
    lines?.flush();
    stopListening();
    const failOnDrift = values['fail-on-drift'] && (report.driftCount ?? 0) > 0;
    if (failOnDrift) io.stderr(diagnostic(`proxy: --fail-on-drift: ${report.driftCount} exchange(s) drifted from ${values.profile}`));
    return written && !failOnDrift ? exitCodes.ok : exitCodes.failed;
  },
};

function writeProblem(error: unknown): string {
  if (error instanceof OutputFileError) return error.reason;
  const code = (error as NodeJS.ErrnoException).code;
  return code ? (fileProblems[code] ?? code) : String((error as Error).message ?? error).slice(0, 200);
}
