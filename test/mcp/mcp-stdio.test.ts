/**
 * `evidence-harness mcp` as an agent's client starts it: the built executable in a child
 * process, spoken to over stdio by the SDK's own Client. With --start-mock it drives a mock of
 * its own; stdout carries only the protocol, so the handshake works at all.
 */
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect, it } from 'vitest';
import { executablePath } from '../../src/openapi/package-root.js';

it('serves the tools over stdio, driving a mock it started itself', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [executablePath(), 'mcp', '--start-mock'],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-agent', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    // The stdio executable serves the same tool set the in-process server test lists in full.
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['reset', 'conformance', 'list_sessions', 'query_journal']));
    const reset = (await client.callTool({ name: 'reset', arguments: {} })) as { content: { text: string }[]; isError?: boolean };
    expect(reset.isError).toBeFalsy();
    expect(JSON.parse(reset.content[0]!.text)).toEqual({ current: 'default' });
  } finally {
    await client.close();
  }
}, 30_000);

it('says its options with --help, and refuses a bad --mock-url in one line', () => {
  const help = spawnSync(process.execPath, [executablePath(), 'mcp', '--help'], { encoding: 'utf8' });
  expect(help.status).toBe(0);
  expect(help.stdout).toContain('--allow-loopback');
  expect(help.stdout).toContain('--allow-private');
  expect(help.stdout).toContain('docs/mcp.md');
  const bad = spawnSync(process.execPath, [executablePath(), 'mcp', '--mock-url', 'ftp://x'], { encoding: 'utf8', input: '' });
  expect(bad.status).toBe(2);
  expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  expect(bad.stderr).toMatch(/--mock-url must be an http\(s\) URL/);
});
