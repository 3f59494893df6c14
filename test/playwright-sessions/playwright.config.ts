/**
 * Many Playwright tests, one mock (docs/assumptions.md ): 4 workers run 40 tests in
 * parallel against one `evidence-harness mock`, each test in its own session through the
 * `evidence-harness/playwright` fixture, each changing scenarios at random. Run with
 * `npx playwright test -c test/playwright-sessions` (Debian's Chromium; no browser is downloaded).
 */
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  fullyParallel: true,
  workers: 4,
  retries: 0,
  forbidOnly: true,
  reporter: [['list']],
  // Traces and screenshots of failures go out of the tree.
  outputDir: `${process.env.TMPDIR ?? '/tmp'}/evidence-harness-playwright-sessions`,
  globalSetup: './global-setup.ts',
  timeout: 30_000,
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] },
  },
});
