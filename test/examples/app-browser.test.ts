/**
 * The example app in headless Chromium with the mock answering inside the page: the app is
 * built with vite into a temporary folder (MSW's service worker script emitted by the build),
 * served by a static server on a loopback port, and driven by playwright-core on Debian's
 * chromium (never a downloaded browser). Each step asserts what the page shows; a screenshot
 * of the final state goes to test-output/example-app.png.
 *
 * Without chromium the test is skipped locally and FAILS when CI=true (CI installs it).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { packageRoot } from '../../src/openapi/package-root.js';
import { inTime } from '../support/time-limits.js';
import { type StaticServer, startStaticServer } from './static-server.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
const inCi = process.env.CI === 'true';
const skip = !haveChromium && !inCi;

const root = packageRoot();
const screenshotPath = join(root, 'test-output', 'example-app.png');
// A host that does not resolve: any answer the page gets for it came from the service worker.
const api = 'http://api.evidence.test';
const poll = { timeout: inTime(), interval: 50 };

let outDir: string | undefined;
let server: StaticServer | undefined;
let browser: Browser | undefined;
let page: Page;
const pageErrors: string[] = [];
const apiFailures: string[] = [];
let apiAnswersFromWorker = 0;

beforeAll(async () => {
  if (skip) return;
  if (!haveChromium) throw new Error(`Chromium is not installed at ${chromiumPath}; CI must install it (apt-get install -y chromium).`);
  outDir = mkdtempSync(join(tmpdir(), 'example-app-'));
  await build({
    configFile: join(root, 'examples', 'app', 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  });
  server = await startStaticServer({ root: outDir });
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('requestfailed', (request) => {
    if (request.url().startsWith(api)) apiFailures.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`);
  });
  page.on('response', (response) => {
    if (response.url().startsWith(api) && response.fromServiceWorker()) apiAnswersFromWorker += 1;
  });
});

afterAll(async () => {
  // The final state, whether the steps passed or not: the picture says what a person would see.
  if (browser && page) {
    mkdirSync(join(root, 'test-output'), { recursive: true });
    await page.screenshot({ path: screenshotPath, fullPage: true });
  }
  await browser?.close();
  await server?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

const text = (selector: string) => page.locator(selector).first().textContent({ timeout: poll.timeout });
const statusesShown = () =>
  page.locator('#job-history li').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.status));

/** Moves a job one step through the control API that the in-page mock also serves. */
async function advanceJob(jobId: string): Promise<number> {
  return page.evaluate(
    async ({ base, id }) => (await fetch(`${base}/__mock/jobs/${encodeURIComponent(id)}/advance`, { method: 'POST' })).status,
    { base: api, id: jobId },
  );
}

it.skipIf(skip)('starts with the mock answering inside the page', async () => {
  await page.goto(`${server!.url}/?mock=msw&api=${encodeURIComponent(api)}&scenario=manual`);
  await expect.poll(() => page.locator('#app').getAttribute('data-ready'), poll).toBe('true');
  expect(await page.locator('#startup-error').isHidden()).toBe(true);
  expect(await text('#config')).toContain('answered in this page by the mock (MSW service worker)');
  expect(server!.requested).toContain('/mockServiceWorker.js');
});

it.skipIf(skip)('shows the job QUEUED, then RUNNING, then COMPLETE with its evaluation', async () => {
  await page.click('#create');
  await expect.poll(() => text('#job-status'), poll).toBe('QUEUED');
  const jobId = (await text('#job-id')) ?? '';
  expect(jobId).not.toBe('—');
  expect(jobId.length).toBeGreaterThan(0);
  expect(await statusesShown()).toEqual(['QUEUED']);

  // The manual scenario moves the job only when told, so each state can be seen on the page.
  expect(await advanceJob(jobId)).toBe(200);
  await expect.poll(() => text('#job-status'), poll).toBe('RUNNING');
  expect(await statusesShown()).toEqual(['QUEUED', 'RUNNING']);

  expect(await advanceJob(jobId)).toBe(200);
  await expect.poll(() => text('#job-status'), poll).toBe('COMPLETE');
  expect(await statusesShown()).toEqual(['QUEUED', 'RUNNING', 'COMPLETE']);
  expect(await text('#job-history li:last-child')).toContain('COMPLETE · PASS');
  expect(await text('#job-result')).toContain('Evaluation: PASS');
});

it.skipIf(skip)('shows a tampered artifact as INVALID and a genuine one as VALID', async () => {
  await page.click('#verify-tampered');
  await expect.poll(() => page.locator('#verify-result [data-integrity]').getAttribute('data-integrity'), poll).toBe('INVALID');
  expect(await text('#verify-result')).toMatch(/signature/i);

  await page.click('#verify-genuine');
  await expect.poll(() => page.locator('#verify-result [data-integrity]').getAttribute('data-integrity'), poll).toBe('VALID');
  expect(await text('#verify-result .headline')).toBe('Genuine artifact: integrity VALID, evaluation PASS');
});

it.skipIf(skip)('shows each error the contract can return, in words a person can read', async () => {
  await page.click('#errors-run-all');
  const expected = [
    { status: 400, code: 'invalid_request', headline: '400 Bad Request' },
    { status: 409, code: 'idempotency_key_conflict', headline: '409 Conflict' },
    { status: 413, code: 'limit_exceeded', headline: '413 Content Too Large' },
    { status: 404, code: 'job_not_found', headline: '404 Not Found' },
    { status: 503, code: 'service_unavailable', headline: '503 Service Unavailable' },
  ];
  for (const { status, code, headline } of expected) {
    const card = `#error-${status} .failure`;
    await expect.poll(() => page.locator(card).count(), poll).toBe(1);
    expect(await text(`${card} .headline`)).toBe(headline);
    expect(await text(`${card} .code`)).toBe(code);
    expect(((await text(`${card} .message`)) ?? '').length).toBeGreaterThan(10);
    expect(((await text(`${card} .advice`)) ?? '').length).toBeGreaterThan(10);
  }
  expect(await text('#error-503 .failure .advice')).toContain('Retry after 1 s.');
  expect(await text('#error-409 .failure .advice')).toContain('Use a new key');
});

it.skipIf(skip)('answered every API request from the service worker, with no page error', async () => {
  expect(pageErrors).toEqual([]);
  expect(apiFailures).toEqual([]);
  expect(apiAnswersFromWorker).toBeGreaterThan(5);
});
