/**
 * @module cli/mcp-command
 * `evidence-harness mcp`: the MCP server (src/mcp) on stdio, for a coding agent's client.
 * It drives a running mock (--mock-url, with its control token) or one it starts in this
 * process (--start-mock). stdout is the protocol's: everything for people goes to stderr.
 */
import { credentialsFromBaseUrl } from '../contract/secrets.js';
import { isLoopbackHostName } from '../documents/address-guard.js';
import { type Command, diagnostic, exitCodes, UsageError } from './command.js';
import { type OptionTable, optionsHelp, parseOptions } from './options.js';
import { onStopSignals } from './stop-signals.js';

/** The command's options, written once: the parser, --help and docs/cli.md come from here. */
export const mcpOptions = {
  'mock-url': {
    kind: 'string',
    value: 'URL',
    help: 'the running mock the tools drive (default http://127.0.0.1:4010)',
  },
  'control-token': {
    kind: 'string',
    value: 'TOKEN',
    help: 'the mock’s control token (X-Mock-Token), when it has one; EVIDENCE_HARNESS_CONTROL_TOKEN is read when this is left out, which keeps it off the process list',
  },
  'start-mock': {
    kind: 'boolean',
    help: 'start a mock in this process on 127.0.0.1 (a free port) and drive it, instead of --mock-url',
  },
  'allow-loopback': {
    kind: 'boolean',
    help: "let the conformance and diff tools reach this machine: loopback, 0.0.0.0/::, and this machine's own interface addresses (refused by default)",
  },
  'allow-private': {
    kind: 'boolean',
    help: 'let the conformance and diff tools reach private networks: 10/8, 172.16/12, 192.168/16, link-local 169.254/16 and fe80::/10, CGNAT 100.64/10, unique-local fc00::/7 (refused by default)',
  },
  'allow-any-path': {
    kind: 'boolean',
    help: 'let the tools read files outside the working directory (refused by default)',
  },
} as const satisfies OptionTable;

const help = `Usage: evidence-harness mcp [options]

A Model Context Protocol server on stdio, for coding agents: the mock's control surface
(scenarios, reset, jobs, journal, coverage, client findings), the conformance runner and the
contract diff as tools; the contract, docs/assumptions.md entries and the scenario catalogue as
resources; prompts for common questions. Every tool's input is bounded and every result
scrubbed of credentials and cut to 64 KiB. The agent's client starts it; see docs/mcp.md.

Options:
${optionsHelp(mcpOptions)}

URLs an agent hands to the tools (conformance baseUrl and spec, diff old and new) reach public
addresses only, judged on the address connected to, on every redirect: --allow-loopback opens
this machine (loopback, 0.0.0.0, its own interface addresses), --allow-private opens private,
link-local, CGNAT and unique-local networks. A user name and password in --mock-url are sent as
Authorization and never printed.

Exit codes: 0 the client closed the connection, or SIGTERM/SIGINT stopped it (its conformance
runs are stopped first; a second signal exits at once, 143/130), 2 usage error.

Examples:
  evidence-harness mcp
  evidence-harness mcp --start-mock
  evidence-harness mcp --mock-url http://mock.internal:4010 --allow-loopback
  evidence-harness mcp --allow-private
`;

/** The mock's URL as given (its user name and password go as Authorization: mock-link.ts); never echoed with them. */
function checkedMockUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Not echoed: an unreadable URL may still hold a password.
    throw new UsageError('--mock-url must be an http(s) URL, and this is not a URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--mock-url must be an http(s) URL, not ${url.protocol.slice(0, 20)}.`);
  return url.href.replace(/\/+$/, '');
}

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'an MCP server on stdio: the mock, the runner and the diff as tools for coding agents',
  help,
  optionTables: { mcp: mcpOptions },
  async run(argv, io) {
    const { values } = parseOptions(mcpOptions, argv, { allowPositionals: false });
    if (values['start-mock'] && values['mock-url'] !== undefined)
      throw new UsageError('--start-mock and --mock-url both say which mock to drive: give one.');
    const token = values['control-token'] ?? process.env.EVIDENCE_HARNESS_CONTROL_TOKEN;
    if (token !== undefined && token.trim() === '') throw new UsageError('--control-token is empty.');
    const [{ StdioServerTransport }, { createEvidenceMcpServer }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('../mcp/server.js'),
    ]);
    let started: { url: string; close(): Promise<void> } | undefined;
    if (values['start-mock']) {
      const { startMockServer } = await import('../server/mock-server.js');
      started = await startMockServer({ host: '127.0.0.1', port: 0 });
      io.stderr(diagnostic(`mcp: started a mock at ${started.url}`));
    }
    const mockUrl = started?.url ?? checkedMockUrl(values['mock-url'] ?? 'http://127.0.0.1:4010');
    const shownMockUrl = credentialsFromBaseUrl(mockUrl).baseUrl.replace(/\/+$/, '');
    if (token === undefined && !isLoopbackHostName(new URL(mockUrl).hostname))
      io.stderr(diagnostic('mcp: the mock is not on loopback and no --control-token was given: its control API will refuse the tools.'));
    const mcp = createEvidenceMcpServer({
      mockUrl,
      ...(token === undefined ? {} : { controlToken: token }),
      access: {
        projectRoot: process.cwd(),
        anyPath: values['allow-any-path'] === true,
        addresses: { allowLoopback: values['allow-loopback'] === true, allowPrivate: values['allow-private'] === true },
      },
    });
    const transport = new StdioServerTransport();
    // Why the server stops: the client's going (stdin ended or closed, the transport closed) or a signal.
    let stopReason = 'the MCP client closed stdin';
    let stopNow = () => {};
    const closed = new Promise<void>((resolve) => {
      transport.onclose = resolve;
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
      stopNow = resolve;
    });
    const removeSignals = onStopSignals({
      stop: (signal) => {
        stopReason = signal;
        stopNow();
      },
    });
    await mcp.server.connect(transport);
    io.stderr(diagnostic(`mcp: serving on stdio, driving the mock at ${shownMockUrl}`));
    await closed;
    // Every tool call's work stops (a conformance run sends nothing more) before the process ends.
    await mcp.close(stopReason);
    removeSignals();
    await started?.close();
    return exitCodes.ok;
  },
};
