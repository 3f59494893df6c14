/**
 * @module cli/main
 * The `evidence-harness` executable: dispatches to one subcommand per use of the project.
 */
import { packageVersion } from '../openapi/package-root.js';
import { type Command, type CommandIo, diagnostic, exitCodes, UsageError } from './command.js';
import { nearest } from './did-you-mean.js';

/**
 * A subcommand as the dispatcher knows it before loading it. Commands load on demand so that
 * `mock` starts without parsing the conformance runner's dependencies (swagger-parser, ajv,
 * fast-check), which would cost most of a second before the first /health answer.
 */
export interface CommandEntry {
  readonly name: string;
  /** One line for the command list; test/cli checks it equals the command's own summary. */
  readonly summary: string;
  load(): Promise<Command>;
}

/** Every subcommand, in the order `--help` lists them. */
export const commands: readonly CommandEntry[] = [
  {
    name: 'mock',
    summary: 'serve a stateful mock of the contract (default http://127.0.0.1:4010)',
    load: async () => (await import('./mock-command.js')).mockCommand,
  },
  {
    name: 'conformance',
    summary: 'check a live implementation against the OpenAPI document',
    load: async () => (await import('./conformance-command.js')).conformanceCommand,
  },
  {
    name: 'proxy',
    summary: 'a validating proxy: judges live traffic to a real server against the contract',
    load: async () => (await import('./proxy-command.js')).proxyCommand,
  },
  {
    name: 'artifact',
    summary: 'mint signed test artifacts for verifyReport (profile eh-jws-ed25519/0.1)',
    load: async () => (await import('./artifact-command.js')).artifactCommand,
  },
  {
    name: 'spec',
    summary: 'validate an OpenAPI document and print a summary of the contract',
    load: async () => (await import('./spec-command.js')).specCommand,
  },
  {
    name: 'profile',
    summary: 'write the default server profile, check, upgrade, compare or merge profile files',
    load: async () => (await import('./profile-command.js')).profileCommand,
  },
  {
    name: 'diff',
    summary: 'list the changes between two OpenAPI documents and whom each breaks',
    load: async () => (await import('./diff-command.js')).diffCommand,
  },
  {
    name: 'mcp',
    summary: 'an MCP server on stdio: the mock, the runner and the diff as tools for coding agents',
    load: async () => (await import('./mcp-command.js')).mcpCommand,
  },
];

function overview(): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return `Usage: evidence-harness <command> [options]

A stateful mock, MSW handlers and a conformance runner for the Evidence Evaluation and
Verification Service HTTP contract (spec/openapi.yaml).

Commands:
${commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join('\n')}

Options:
  -h, --help     show this help, or a command's help: evidence-harness <command> --help
  -v, --version  print the version

Run 'evidence-harness <command> --help' for a command's options and examples.
`;
}

function suggestion(typed: string): string {
  const near = nearest(
    typed,
    commands.map((command) => command.name),
  );
  return near === undefined ? '' : ` Did you mean '${near}'?`;
}

/** Runs the CLI with `argv` (without node and the script); resolves to the exit code. */
export async function main(argv: readonly string[], io: CommandIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    const named = first === 'help' ? commands.find((command) => command.name === rest[0]) : undefined;
    io.stdout(named ? (await named.load()).help : overview());
    return exitCodes.ok;
  }
  if (first === '-v' || first === '--version') {
    io.stdout(`${packageVersion()}\n`);
    return exitCodes.ok;
  }
  const entry = commands.find((candidate) => candidate.name === first);
  if (!entry) {
    io.stderr(
      diagnostic(
        `unknown command '${first}'.${suggestion(first)} Commands: ${commands.map((c) => c.name).join(', ')}. See 'evidence-harness --help'.`,
      ),
    );
    return exitCodes.usage;
  }
  const command = await entry.load();
  if (rest.includes('-h') || rest.includes('--help')) {
    io.stdout(command.help);
    return exitCodes.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(diagnostic(`${command.name}: ${error.message} See 'evidence-harness ${command.name} --help'.`));
      return exitCodes.usage;
    }
    io.stderr(diagnostic(`${command.name} failed: ${(error as Error).message}`));
    return exitCodes.failed;
  }
}
