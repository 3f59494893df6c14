/**
 * @module cli/mock-command
 * `evidence-harness mock`: the stateful mock of the contract on a local port, for client
 * development.
 */
import { parseArgs } from 'node:util';
import { createMockEngine, normalizeBasePath, ScenarioError } from '../engine/index.js';
import { startMockServer } from '../server/mock-server.js';
import { isScenarioPath, loadScenarioFile } from '../server/scenario-file.js';
import { type Command, diagnostic, exitCodes, integerOption, parseCommandLine, UsageError } from './command.js';

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
  --control-token T    token for the control API (/__mock/); generated when --host is not loopback
  --quiet              no per-request log lines
  -h, --help           show this help

Scenarios shipped: default, slow-pass, fail, indeterminate, job-failed, manual, by-operation-id,
flaky-503, rate-limited, error-400, error-404, error-409, error-413, server-error
(docs/scenarios.md). One request can pick its own with 'Prefer: scenario=NAME' or force a
status with 'Prefer: code=503'.

Control API (spec/control-api.yaml): GET /__mock/scenarios, PUT /__mock/scenario,
POST /__mock/reset, GET /__mock/jobs, POST /__mock/jobs/{id}/advance,
PUT /__mock/jobs/{id}/state, GET /__mock/journal.

Examples:
  evidence-harness mock
  evidence-harness mock --port 8080 --scenario slow-pass
  evidence-harness mock --scenario ./my-scenario.yaml --seed 42
  curl -s localhost:4010/health
`;

export const mockCommand: Command = {
  name: 'mock',
  summary: 'serve a stateful mock of the contract (default http://127.0.0.1:4010)',
  help,
  async run(argv, io) {
    const { values } = parseCommandLine(() =>
      parseArgs({
        args: [...argv],
        strict: true,
        options: {
          port: { type: 'string' },
          host: { type: 'string' },
          scenario: { type: 'string' },
          seed: { type: 'string' },
          'base-path': { type: 'string' },
          'control-token': { type: 'string' },
          quiet: { type: 'boolean', default: false },
        },
      }),
    );
    const port = integerOption({ value: values.port, name: 'port', min: 0, max: 65535 }) ?? 4010;
    const seed = integerOption({ value: values.seed, name: 'seed', min: 0, max: 2 ** 32 - 1 });
    let basePath: string;
    try {
      basePath = normalizeBasePath(values['base-path']);
    } catch (error) {
      throw new UsageError(`--${(error as Error).message.replace('basePath', 'base-path')}.`);
    }
    let engine: ReturnType<typeof createMockEngine>;
    try {
      const choice = values.scenario ?? 'default';
      const scenario = isScenarioPath(choice) ? await loadScenarioFile(choice) : choice;
      engine = createMockEngine({
        scenario,
        ...(seed === undefined ? {} : { seed }),
        ...(basePath ? { basePath } : {}),
      });
    } catch (error) {
      if (error instanceof ScenarioError) {
        io.stderr(diagnostic(error.message));
        return exitCodes.usage;
      }
      if ((error as Error).name === 'ControlError') throw new UsageError(`--scenario: ${(error as Error).message}.`);
      throw error;
    }
    let server: Awaited<ReturnType<typeof startMockServer>>;
    try {
      server = await startMockServer({
        engine,
        port,
        ...(values.host ? { host: values.host } : {}),
        ...(values['control-token'] ? { controlToken: values['control-token'] } : {}),
        ...(values.quiet ? {} : { log: (line: string) => io.stdout(`${line}\n`) }),
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const reason = code === 'EADDRINUSE' ? `port ${port} is already in use (try --port 0 or another port)` : (error as Error).message;
      io.stderr(diagnostic(`mock: cannot listen: ${reason}.`));
      return exitCodes.failed;
    }
    const base = `${server.url}${basePath}`;
    io.stdout(
      [
        `evidence-harness mock listening on ${base} (scenario: ${engine.control.scenario}${seed === undefined ? '' : `, seed: ${seed}`})`,
        ...(server.controlToken ? [`control API token (X-Mock-Token): ${server.controlToken}`] : []),
        `try: curl -s ${base}/health`,
        'press Ctrl+C to stop',
        '',
      ].join('\n'),
    );
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        io.stdout(`${signal}: stopping…\n`);
        void server.close().then(resolve);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    return exitCodes.ok;
  },
};
