/**
 * The Storybook recipe (examples/storybook, its own install): Storybook 10 with
 * msw-storybook-addon 3 over evidence-harness's MSW handlers, built and loaded in Debian's
 * Chromium (never a downloaded browser). A story is polled to COMPLETE PASS, and a story under
 * `job-failed` ends FAILED, each with an engine of its own.
 *
 * Needs `npm ci` in examples/storybook and the package's build (`npm run build`); without the
 * example's install or Chromium it is skipped locally and FAILS when CI=true.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { packageRoot } from '../../src/openapi/package-root.js';
import { type StaticServer, startStaticServer } from './static-server.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const example = join(packageRoot(), 'examples/storybook');
const ready =
  existsSync(chromiumPath) && existsSync(join(example, 'node_modules/storybook')) && existsSync(join(packageRoot(), 'dist/mocks/index.js'));
const skip = !ready && process.env.CI !== 'true';

let browser: Browser | undefined;
let site: StaticServer | undefined;
let output: string | undefined;

beforeAll(async () => {
  if (skip) return;
  if (!ready) throw new Error('examples/storybook needs `npm ci` in its folder, the package build and Chromium at /usr/bin/chromium');
  output = mkdtempSync(join(tmpdir(), 'evidence-harness-storybook-'));
  execFileSync('npx', ['storybook', 'build', '--quiet', '--output-dir', output], { cwd: example, stdio: 'ignore', timeout: 240_000 });
  site = await startStaticServer({ root: output });
  browser = await chromium.launch({ executablePath: chromiumPath, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  if (output) rmSync(output, { recursive: true, force: true });
});

async function storyStatus(id: string): Promise<string> {
  const page = await (browser as Browser).newPage();
  try {
    await page.goto(`${site!.url}/iframe.html?id=${id}&viewMode=story`);
    const status = page.locator('#job-status');
    await expect
      .poll(async () => ((await status.count()) ? await status.textContent() : ''), { timeout: 20_000, interval: 200 })
      .toMatch(/^(COMPLETE|FAILED|error)/);
    return (await status.textContent()) ?? '';
  } finally {
    await page.close();
  }
}

it.skipIf(skip)(
  'polls a story to COMPLETE PASS, and shows a job FAILED under job-failed',
  async () => {
    expect(await storyStatus('job-status--polled-to-completion')).toBe('COMPLETE PASS');
    expect(await storyStatus('job-status--job-failed')).toBe('FAILED');
  },
  60_000,
);
