/**
 * @module mcp/prompts
 * Questions an agent building a client is likely to be asked, each written as the steps that
 * answer it with this server's tools and resources.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

function user(text: string) {
  return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
}

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'why_poll_loop_flagged',
    {
      title: 'Why is my client’s poll loop flagged?',
      description: 'Reads the client findings about polling and explains what the client does and what to change.',
      argsSchema: { jobId: z.string().max(256).optional().describe('the job the client was polling, if known') },
    },
    ({ jobId }) =>
      user(
        [
          'My client was flagged by the evidence-harness mock for how it polls a job' + (jobId ? ` (job ${jobId})` : '') + '.',
          '1. Call the `client_findings` tool and keep the findings whose rule is about polling (poll_too_fast, poll_without_backoff, poll_after_final, ignored_retry_after, …).',
          '2. For each, say what the client did (the observations the finding quotes), and why it would hurt against the real service (docs/client-findings.md; the resource evidence-harness://assumptions/26 explains the judge).',
          jobId
            ? `3. Call \`inspect_job\` with jobId ${jobId} to see the job's timeline and how many reads it took.`
            : '3. Call `query_journal` to see the getJob calls in order, with their times.',
          '4. Propose the change to the poll loop: wait between polls and longer each time, honour Retry-After, stop at COMPLETE or FAILED (or use the client’s waitForJob).',
        ].join('\n'),
      ),
  );
  server.registerPrompt(
    'what_new_version_breaks',
    {
      title: 'What does a new version of the contract break for my tests?',
      description:
        'Diffs two versions of the contract and says which changes break clients, which break servers, and which of them the tests exercise.',
      argsSchema: {
        old: z.string().max(2048).describe('OLD: the contract the client was written against (path or URL)'),
        new: z.string().max(2048).describe('NEW: the proposed version (path or URL)'),
      },
    },
    ({ old, new: next }) =>
      user(
        [
          `Compare two versions of the HTTP contract: OLD ${old} and NEW ${next}.`,
          '1. Call the `diff` tool with old and new (format json).',
          '2. List the changes that break clients (what a client written against OLD will now be refused or receive), then those that break servers (what `conformance --spec NEW` will fail on a server implementing OLD).',
          '3. Call the `coverage` tool: for each change that breaks clients, say whether the client’s tests exercise the behaviour it touches.',
          '4. For each exercised change, name the test to change and how; for each unexercised one, the test to add before the new version ships.',
        ].join('\n'),
      ),
  );
}
