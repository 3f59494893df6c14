/**
 * The pact of every session (docs/assumptions.md A-60), what `mock --pact-out` writes when the
 * traffic ran in named sessions (the Playwright setup), passes Pact's own verifier against a
 * fresh mock: one interaction per behaviour, with V4 comments naming the sessions.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Verifier } from '@pact-foundation/pact';
import { expect, it } from 'vitest';
import { startMockServer } from '../../src/server/index.js';
import { runClientFlow } from './client-flow.js';

it('verifies against a fresh mock the pact of traffic that ran in two sessions', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'eh-pact-sessions-'));
  const recording = await startMockServer({ port: 0, host: '127.0.0.1' });
  const provider = await startMockServer({ port: 0, host: '127.0.0.1' });
  try {
    for (const session of ['worker-0', 'worker-1']) {
      await runClientFlow({
        baseUrl: recording.url,
        key: `key-${session}`,
        fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers ?? {}), 'x-mock-session': session } }),
      });
    }
    const pact = recording.engine.control.pactOfAllSessions({ consumer: 'web', provider: 'evidence' });
    expect(recording.engine.control.pact().interactions).toHaveLength(0);
    expect(pact.interactions.length).toBeGreaterThan(5);
    expect(pact.interactions.every((interaction) => interaction.comments?.text?.[0] === 'seen in sessions worker-0, worker-1')).toBe(true);
    const pactFile = join(folder, 'web-evidence.json');
    await writeFile(pactFile, JSON.stringify(pact));
    const verified = new Verifier({
      providerBaseUrl: provider.url,
      pactUrls: [pactFile],
      providerStatesSetupUrl: `${provider.url}/__mock/provider-states`,
      logLevel: 'error',
    }).verifyProvider();
    await expect(verified).resolves.toBeDefined();
  } finally {
    await recording.close({ graceMs: 100 });
    await provider.close({ graceMs: 100 });
    await rm(folder, { recursive: true, force: true });
  }
});
