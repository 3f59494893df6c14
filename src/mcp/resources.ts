/**
 * @module mcp/resources
 * What an agent can read without calling the mock: the contract document (spec/openapi.yaml),
 * one docs/assumptions.md entry by its A-number (how the mock decides what the contract leaves
 * open), and the scenario catalogue shipped with the mock (scenarios/*.json).
 */
// biome-ignore lint/style/noRestrictedImports: reads the package's own docs/assumptions.md and spec/openapi.yaml, never a path an agent names
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { builtinScenarios } from '../engine/builtin-scenarios.js';
import { bundledSpecPath, packageRoot } from '../openapi/package-root.js';
import { ToolInputError } from './bounds.js';

export const resourceUris = {
  contract: 'evidence-harness://contract/openapi.yaml',
  scenarios: 'evidence-harness://scenarios',
  assumption: 'evidence-harness://assumptions/{number}',
} as const;

/** docs/assumptions.md's entries by number: each `## A-n Title` section up to the next heading of its level. */
export function assumptionEntries(markdown: string): Map<number, { title: string; text: string }> {
  const entries = new Map<number, { title: string; text: string }>();
  const headings = [...markdown.matchAll(/^## A-(\d{1,3}) (.*)$/gm)];
  for (const heading of headings) {
    const start = heading.index;
    const rest = markdown.slice(start + heading[0].length);
    const next = /^## /m.exec(rest);
    const text = markdown.slice(start, start + heading[0].length + (next ? next.index : rest.length)).trimEnd();
    entries.set(Number(heading[1]), { title: heading[2]!.trim(), text });
  }
  return entries;
}

async function assumptions(): Promise<Map<number, { title: string; text: string }>> {
  try {
    return assumptionEntries(await readFile(join(packageRoot(), 'docs', 'assumptions.md'), 'utf8'));
  } catch {
    throw new ToolInputError('docs/assumptions.md is not part of this installation (it ships with the source checkout)');
  }
}

export function registerResources(server: McpServer): void {
  server.registerResource(
    'contract',
    resourceUris.contract,
    {
      title: 'The HTTP contract (OpenAPI 3.1)',
      description: 'spec/openapi.yaml: the document the mock serves and the runner checks by default',
      mimeType: 'application/yaml',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/yaml', text: await readFile(bundledSpecPath(), 'utf8') }] }),
  );
  server.registerResource(
    'scenarios',
    resourceUris.scenarios,
    {
      title: 'The scenario catalogue',
      description: 'Every scenario shipped with the mock, whole, as put_scenario takes one',
      mimeType: 'application/json',
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify([...builtinScenarios().values()], null, 2) }],
    }),
  );
  server.registerResource(
    'assumption',
    new ResourceTemplate(resourceUris.assumption, {
      list: async () => ({
        resources: [...(await assumptions()).entries()].map(([number, entry]) => ({
          uri: `evidence-harness://assumptions/${number}`,
          name: `A-${number} ${entry.title}`,
          mimeType: 'text/markdown',
        })),
      }),
    }),
    {
      title: 'An assumption (docs/assumptions.md)',
      description: 'How the mock and the runner decide one thing the contract leaves open, by its A-number',
      mimeType: 'text/markdown',
    },
    async (uri, variables) => {
      const raw = String(variables.number ?? '');
      const number = /^(?:A-)?(\d{1,3})$/i.exec(raw)?.[1];
      const entry = number === undefined ? undefined : (await assumptions()).get(Number(number));
      if (!entry) throw new ToolInputError(`no assumption ${raw.slice(0, 20)} (give its number: evidence-harness://assumptions/26)`);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: entry.text }] };
    },
  );
}
