/**
 * @module cli/mock-options
 * The options of `evidence-harness mock`, written once: the parser, --help, the config file's
 * schema (evidence-harness.config.schema.json) and docs/cli.md are derived from this table.
 */
import { defaultLimits, defaultPactParties } from '../engine/index.js';
import { formatSize } from './command.js';
import type { OptionTable } from './options.js';
import { addressPolicyOptions, allowRemoteRefsOption } from './spec-file.js';

/** The names looked for in the working folder, in this order, when no --config is given. */
export const configFileNames = ['evidence-harness.config.json', 'evidence-harness.config.yaml', 'evidence-harness.config.yml'] as const;

export const mockDefaults = { port: 4010, host: '127.0.0.1', storeNamespace: 'evidence-harness' } as const;

/** Largest budget a size option accepts: past it the figure means nothing on a laptop. */
const maxBudgetBytes = 1024 ** 4;
const memory = 'memory';

export const mockOptions = {
  port: { kind: 'integer', value: 'N', min: 0, max: 65535, help: `port to listen on (default ${mockDefaults.port}; 0 picks a free one)` },
  host: { kind: 'string', value: 'HOST', help: `address to listen on (default ${mockDefaults.host})` },
  scenario: {
    kind: 'string',
    value: 'NAME|FILE',
    path: 'file-or-name',
    help: 'a shipped scenario (default: default) or a JSON/YAML scenario file',
  },
  profile: {
    kind: 'string',
    value: 'FILE',
    path: 'file',
    help: "answer as a real server does where the contract says 'not shown': a profile file (YAML or JSON) written by 'conformance --write-profile' or 'profile --init' (docs/profiles.md). A profile that would break a rule of the contract is refused, naming the entry",
  },
  seed: { kind: 'integer', value: 'N', min: 0, max: 2 ** 32 - 1, help: 'seed job ids and fractional faults, for reproducible runs' },
  'base-path': { kind: 'string', value: 'PATH', help: 'serve the contract under a prefix, e.g. /api' },
  spec: {
    kind: 'string',
    value: 'FILE|URL',
    path: 'file-or-url',
    help: 'serve another version of the contract: an OpenAPI 3.1 document (default: the bundled spec/openapi.yaml). Its routes, validation and limits drive the mock; operations it adds are answered from its examples (docs/contract-versions.md)',
  },
  'allow-remote-refs': allowRemoteRefsOption,
  ...addressPolicyOptions,
  'control-token': {
    kind: 'string',
    value: 'T',
    help: 'token for the control API (/__mock/); generated when --host is not loopback',
  },
  'control-origin': {
    kind: 'string',
    value: 'O',
    multiple: true,
    help: 'let web pages of origin O (such as http://localhost:5173) call the control API with CORS; repeatable. Without it, a control call carrying any Origin is refused, and so is one whose Host is not this machine (DNS rebinding)',
  },
  watch: {
    kind: 'boolean',
    help: 'reload the --scenario file when it changes (the journal notes each reload; a file that does not validate is reported and the scenario stays as it was). It must stay a regular file where the path led at start: a symbolic link given is followed once, and a link, FIFO or folder put there later is refused',
  },
  'tls-cert': {
    kind: 'string',
    value: 'FILE',
    path: 'file',
    help: 'serve HTTPS with this certificate (PEM), so an https frontend can call the mock without mixed-content errors; give --tls-key too',
  },
  'tls-key': { kind: 'string', value: 'FILE', path: 'file', help: 'the private key (PEM) of --tls-cert' },
  config: {
    kind: 'string',
    value: 'FILE',
    inConfig: false,
    help: `read options from FILE (default: ${configFileNames.join(', ')} in the working folder, if there); flags given on the command line win`,
  },
  store: {
    kind: 'string',
    value: 'URL',
    pattern: /^rediss?:\/\//,
    help: 'keep jobs, idempotency keys, scenarios and the journal in Redis (redis://HOST:PORT[/DB]), so several replicas serve one mock and a restart loses nothing (docs/scale-out.md); default: in memory. Also read from EVIDENCE_HARNESS_STORE',
  },
  'store-namespace': {
    kind: 'string',
    value: 'NS',
    pattern: /^[A-Za-z0-9._-]{1,64}$/,
    help: `keep this mock's keys apart from other mocks on the same Redis (default ${mockDefaults.storeNamespace})`,
  },
  'coverage-report': {
    kind: 'string',
    value: 'F=FILE',
    multiple: true,
    pattern: /^(json|html)=.+$/,
    path: 'format=file',
    help: 'when the mock stops, write its consumer coverage and client findings to FILE as json or html (json=coverage.json, html=coverage.html); repeatable',
  },
  'pact-out': {
    kind: 'string',
    value: 'FILE',
    path: 'file',
    help: "when the mock stops, write the client's traffic as a Pact V4 file: one interaction per distinct behaviour, with the provider states the mock verifies too, no credentials (docs/pact.md)",
  },
  'pact-consumer': {
    kind: 'string',
    value: 'NAME',
    help: `the consumer's name in the --pact-out file (default ${defaultPactParties.consumer})`,
  },
  'pact-provider': {
    kind: 'string',
    value: 'NAME',
    help: `the provider's name in the --pact-out file (default ${defaultPactParties.provider})`,
  },
  quiet: {
    kind: 'boolean',
    help: 'no per-request log lines (they are written in batches, about 10 ms apart), and no coverage summary when the mock stops',
  },
  'max-jobs': {
    kind: 'integer',
    value: 'N',
    min: 1,
    max: 100_000_000,
    section: memory,
    help: `jobs kept (default ${defaultLimits.maxJobs})`,
  },
  'max-job-bytes': {
    kind: 'size',
    value: 'SIZE',
    min: 1024,
    max: maxBudgetBytes,
    section: memory,
    help: `jobs kept, in estimated bytes (default ${formatSize(defaultLimits.maxJobBytes)})`,
  },
  'max-key-bytes': {
    kind: 'size',
    value: 'SIZE',
    min: 1024,
    max: maxBudgetBytes,
    section: memory,
    help: `idempotency keys kept, estimated (default ${formatSize(defaultLimits.maxIdempotencyKeyBytes)})`,
  },
  'max-journal-bytes': {
    kind: 'size',
    value: 'SIZE',
    min: 1024,
    max: maxBudgetBytes,
    section: memory,
    help: `request journal, estimated (default ${formatSize(defaultLimits.maxJournalBytes)})`,
  },
  'max-scenario-bytes': {
    kind: 'size',
    value: 'SIZE',
    min: 1024,
    max: maxBudgetBytes,
    section: memory,
    help: `scenarios registered at run time (default ${formatSize(defaultLimits.maxScenarioRegistryBytes)})`,
  },
} as const satisfies OptionTable;

export const memorySection = memory;
