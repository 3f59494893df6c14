/**
 * pactFrom in a real browser page under a strict Content-Security-Policy (no 'unsafe-eval'): the
 * engine in MSW's service worker answers the page's requests, and the page reads the pact of
 * them as an object, with its credential scrubbed. Proves the pact writer and the scrubber need
 * nothing from Node.
 *
 * Without chromium the test is skipped locally and FAILS when CI=true (CI installs it).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { build, type Plugin } from 'vite';
import { afterAll, expect, it } from 'vitest';
import { type StaticServer, startStaticServer } from '../examples/static-server.js';
import { shippedEntry } from '../support/shipped-entry.js';
import { testTimeout } from '../support/time-limits.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
const skip = !haveChromium && process.env.CI !== 'true';
const api = 'http://api.evidence.test';
const policy = `default-src 'self'; script-src 'self'; connect-src 'self' ${api}; worker-src 'self'; style-src 'self'`;

const page = `<!doctype html><html><head><meta charset="utf-8"><title>pact in browser</title></head>
<body><pre id="out"></pre><script type="module" src="./main.ts"></script></body></html>`;

const main = `
import { pactFrom, setupMockWorker } from 'evidence-harness/msw/browser';
const api = ${JSON.stringify(api)};
const headers = { 'content-type': 'application/json', 'idempotency-key': 'browser-key', authorization: 'Bearer browser-secret-0123456789' };
const body = JSON.stringify({
  profile: 'svc.payment-conformance/0.1-draft', operationId: 'op-1',
  instructionDigest: 'a'.repeat(64), policyDigest: 'b'.repeat(64),
  evidence: [{ id: 'ev-1', kind: 'issuer_assertion' }],
});
const mock = setupMockWorker({ baseUrl: api });
await mock.worker.start({ serviceWorker: { url: '/mockServiceWorker.js' }, onUnhandledRequest: 'bypass', quiet: true });
const { jobId } = await (await fetch(api + '/v0/evaluations', { method: 'POST', headers, body })).json();
for (let poll = 0; poll < 4; poll += 1) await (await fetch(api + '/v0/jobs/' + jobId, { headers })).text();
document.getElementById('out').textContent = JSON.stringify(pactFrom(mock.control, { consumer: 'browser-app', provider: 'evidence' }));
`;

function mswServiceWorker(): Plugin {
  const file = createRequire(import.meta.url).resolve('msw/mockServiceWorker.js');
  return {
    name: 'pact-in-browser:msw-service-worker',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'mockServiceWorker.js', source: readFileSync(file, 'utf8') });
    },
  };
}

let folder: string | undefined;
let server: StaticServer | undefined;
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

it.skipIf(skip)(
  'writes the pact of the page’s requests in the page, under a strict CSP',
  async () => {
    if (!haveChromium) throw new Error(`Chromium is not installed at ${chromiumPath}; CI must install it (apt-get install -y chromium).`);
    folder = mkdtempSync(join(tmpdir(), 'eh-pact-in-browser-'));
    const source = join(folder, 'src');
    const out = join(folder, 'out');
    mkdirSync(source, { recursive: true });
    writeFileSync(join(source, 'index.html'), page);
    writeFileSync(join(source, 'main.ts'), main);
    await build({
      root: source,
      configFile: false,
      logLevel: 'warn',
      plugins: [mswServiceWorker()],
      resolve: { alias: { 'evidence-harness/msw/browser': shippedEntry('./msw/browser') } },
      build: { outDir: out, emptyOutDir: true, chunkSizeWarningLimit: 4096, target: 'es2022' },
    });
    server = await startStaticServer({ root: out, headers: { 'content-security-policy': policy } });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    tab.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
    });
    await tab.goto(`${server.url}/index.html`);
    await expect.poll(() => tab.locator('#out').textContent(), { timeout: 20_000, interval: 100 }).not.toBe('');
    const text = (await tab.locator('#out').textContent()) ?? '{}';
    const pact = JSON.parse(text);
    expect(pact.metadata.pactSpecification.version).toBe('4.0');
    expect(pact.consumer).toEqual({ name: 'browser-app' });
    expect(pact.interactions.map((interaction: { providerStates?: { name: string }[] }) => interaction.providerStates?.[0]?.name)).toEqual(
      expect.arrayContaining(['no evaluation job was created with this Idempotency-Key', 'a job in state RUNNING']),
    );
    expect(text).not.toContain('browser-secret-0123456789');
    expect(errors).toEqual([]);
  },
  testTimeout({ processes: 5 }),
);
