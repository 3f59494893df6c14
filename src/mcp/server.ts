/**
 * @module mcp/server
 * The evidence-harness MCP server: the mock's control surface, the conformance runner and the
 * diff as tools, the contract, the assumptions and the scenarios as resources, and a few
 * prompts, on the official SDK's McpServer. Transport-free: `evidence-harness mcp` connects it
 * to stdio, the tests to the SDK's in-memory pair.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { credentialsFromBaseUrl, Scrubber } from '../contract/secrets.js';
import { packageVersion } from '../openapi/package-root.js';
import type { McpAccess } from './bounds.js';
import { MockLink } from './mock-link.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { registerTools } from './tools.js';

export interface EvidenceMcpOptions {
  /** The running mock the control tools drive; a user name and password in it are never shown. */
  readonly mockUrl: string;
  /** Its control token, when it has one (sent as X-Mock-Token, scrubbed from every result). */
  readonly controlToken?: string;
  readonly access: McpAccess;
}

export interface EvidenceMcp {
  readonly server: McpServer;
  /** Resolves once every tool call running now has ended (its work stopped or done). */
  settled(): Promise<void>;
  /**
   * Stops every tool call's work (a conformance run sends nothing more; `reason` says why, as
   * 'SIGTERM' or 'stdin closed'), closes the connection, so that no answer goes out for them,
   * and resolves once they have all ended.
   */
  close(reason?: string): Promise<void>;
}

export function createEvidenceMcpServer(options: EvidenceMcpOptions): EvidenceMcp {
  const server = new McpServer(
    { name: 'evidence-harness', version: packageVersion() },
    {
      instructions:
        'Drives the evidence-harness mock of the Evidence Evaluation and Verification Service: scenarios, jobs, journal, coverage and client findings; runs the conformance runner and the contract diff.',
    },
  );
  const link = new MockLink({ url: options.mockUrl, ...(options.controlToken === undefined ? {} : { token: options.controlToken }) });
  const secrets = [
    ...(options.controlToken === undefined ? [] : [options.controlToken]),
    ...credentialsFromBaseUrl(options.mockUrl).secrets,
  ];
  const scrubber = new Scrubber({ secrets, credentialHeaders: ['x-mock-token'] });
  // The server-wide stop every call's work listens to, beside its own cancel.
  const stopping = new AbortController();
  const running = new Set<Promise<unknown>>();
  const settled = async () => {
    await Promise.allSettled([...running]);
  };
  registerTools({ server, link, access: options.access, scrubber, secrets, stopping: stopping.signal, running });
  registerResources(server);
  registerPrompts(server);
  return {
    server,
    settled,
    async close(reason = 'the MCP server closed') {
      stopping.abort(reason);
      await server.close();
      await settled();
      await link.close();
    },
  };
}
