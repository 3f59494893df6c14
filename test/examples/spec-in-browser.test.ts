/**
 * A proposed version of the contract served by the mock inside a real browser page under a
 * strict Content-Security-Policy (no 'unsafe-eval'): a page built with vite hands the document
 * (as JSON, local $refs unresolved) to `setupMockWorker({ spec })`, and the engine in MSW's
 * service worker answers by that document: the new field accepted, 65 characters a 413, the job
 * polled to its end. Any CSP violation the page reports fails the test.
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
import { parse } from 'yaml';
import { contractVersions, writeVersion } from '../fixtures/contract-versions/versions.js';
import { shippedEntry } from '../support/shipped-entry.js';
import { testTimeout } from '../support/time-limits.js';
import { type StaticServer, startStaticServer } from './static-server.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
const skip = !haveChromium && process.env.CI !== 'true';
const api = 'http://api.evidence.test';
const policy = `default-src 'self'; script-src 'self'; connect-src 'self' ${api}; worker-src 'self'; style-src 'self'`;

const page = `<!doctype html><html><head><meta charset="utf-8"><title>spec in browser</title></head>
<body><pre id="out"></pre><script type="module" src="./main.ts"></script></body></html>`;

const main = `
import { setupMockWorker } from 'evidence-harness/msw/browser';
import spec from './spec.json';
const violations = [];
document.addEventListener('securitypolicyviolation', (event) => violations.push(event.violatedDirective + ' ' + event.blockedURI + ' ' + event.sourceFile + ':' + event.lineNumber + ':' + event.columnNumber + ' ' + (event.sample || '')));
const api = ${JSON.stringify(api)};
const body = (extra) => JSON.stringify({
  profile: 'svc.payment-conformance/0.1-draft', operationId: 'op-1',
  instructionDigest: 'a'.repeat(64), policyDigest: 'b'.repeat(64),
  evidence: [{ id: 'ev-1', kind: 'issuer_assertion' }], ...extra,
});
let key = 0;
const create = (extra) => fetch(api + '/v0/evaluations', { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'k' + (++key) }, body: body(extra) });
const mock = setupMockWorker({ baseUrl: api, spec });
await mock.worker.start({ serviceWorker: { url: '/mockServiceWorker.js' }, onUnhandledRequest: 'bypass', quiet: true });
const withField = await create({ priority: 'high' });
const tooLong = await create({ operationId: 'o'.repeat(65) });
const longest = await create({ operationId: 'o'.repeat(64) });
const job = await longest.json();
let status = job.status;
for (let poll = 0; poll < 10 && status !== 'COMPLETE' && status !== 'FAILED'; poll += 1)
  status = (await (await fetch(api + '/v0/jobs/' + job.jobId)).json()).status;
document.getElementById('out').textContent = JSON.stringify({
  withField: withField.status, tooLong: tooLong.status, tooLongCode: (await tooLong.json()).code, longest: longest.status, status, violations,
});
`;

function mswServiceWorker(): Plugin {
  const file = createRequire(import.meta.url).resolve('msw/mockServiceWorker.js');
  return {
    name: 'spec-in-browser:msw-service-worker',
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
  if (folder && !process.env.KEEP) rmSync(folder, { recursive: true, force: true });
});

it.skipIf(skip)(
  'serves the document it is given, in the page, under a strict CSP',
  async () => {
    if (!haveChromium) throw new Error(`Chromium is not installed at ${chromiumPath}; CI must install it (apt-get install -y chromium).`);
    folder = mkdtempSync(join(tmpdir(), 'eh-spec-in-browser-'));
    const source = join(folder, 'src');
    const out = join(folder, 'out');
    const version = writeVersion(contractVersions.find((candidate) => candidate.name === 'v02-proposal')!);
    mkdirSync(source, { recursive: true });
    writeFileSync(join(source, 'index.html'), page);
    writeFileSync(join(source, 'main.ts'), main);
    writeFileSync(join(source, 'spec.json'), JSON.stringify(parse(readFileSync(version, 'utf8'))));
    await build({
      root: source,
      configFile: false,
      logLevel: 'warn',
      plugins: [mswServiceWorker()],
      // The page sits in a temporary folder, outside this package: point it at the build.
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
      // The browser logs each 4xx it sees (the 413 asked for, a favicon); anything else counts.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
    });
    await tab.goto(`${server.url}/index.html`);
    await expect.poll(() => tab.locator('#out').textContent(), { timeout: 20_000, interval: 100 }).not.toBe('');
    const result = JSON.parse((await tab.locator('#out').textContent()) ?? '{}');
    expect(result).toEqual({
      withField: 202,
      tooLong: 413,
      tooLongCode: 'limit_exceeded',
      longest: 202,
      status: 'COMPLETE',
      violations: [],
    });
    expect(errors).toEqual([]);
  },
  testTimeout({ processes: 5 }),
);
