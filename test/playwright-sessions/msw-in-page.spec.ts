/**
 * The `@msw/playwright` recipe of docs/playwright.md, as written there: each test its own
 * engine (`createHandlers`), its handlers answering the page's requests through Playwright's
 * routing, no mock server at all. Runs beside the sessions suite, in the same workers.
 */
import { defineNetworkFixture, type NetworkFixture } from '@msw/playwright';
import { test as base, expect } from '@playwright/test';
import { createHandlers, type MockHandlers } from '../../mocks/index.js';

const test = base.extend<{ mock: MockHandlers; network: NetworkFixture }>({
  // A new engine per test: its scenario, jobs and journal are the test's alone.
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern; it needs none.
  mock: async ({}, use) => {
    await use(createHandlers({ baseUrl: 'http://api.evidence.test' }));
  },
  network: [
    async ({ context, mock }, use) => {
      const network = defineNetworkFixture({ context, handlers: mock.handlers, onUnhandledRequest: 'bypass' });
      await network.enable();
      await use(network);
      await network.disable();
    },
    { auto: true },
  ],
});

/** Creates an evaluation from the page and polls it to its end, as an app would. */
async function runInPage(page: import('@playwright/test').Page) {
  return page.evaluate(async () => {
    const created = await fetch('http://api.evidence.test/v0/evaluations', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'in-page-1' },
      body: JSON.stringify({
        profile: 'svc.payment-conformance/0.1-draft',
        operationId: 'op-2026-0001',
        instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
        policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
        evidence: [{ id: 'ev-1', kind: 'issuer_assertion' }],
      }),
    });
    const { jobId } = (await created.json()) as { jobId: string };
    for (let reads = 0; reads < 10; reads += 1) {
      const job = (await (await fetch(`http://api.evidence.test/v0/jobs/${jobId}`)).json()) as { status: string; evaluation?: string };
      if (job.status === 'COMPLETE' || job.status === 'FAILED') return job;
    }
    throw new Error('the job did not end in 10 reads');
  });
}

test('@msw/playwright: a job polled to COMPLETE PASS in the page', async ({ page, mock }) => {
  await page.goto(process.env.EVIDENCE_APP_URL!);
  expect(await runInPage(page)).toEqual(expect.objectContaining({ status: 'COMPLETE', evaluation: 'PASS' }));
  expect(mock.control.calls({ operation: 'createEvaluation' })).toHaveLength(1);
});

test('@msw/playwright: a job FAILED under job-failed', async ({ page, mock }) => {
  mock.control.useScenario('job-failed');
  await page.goto(process.env.EVIDENCE_APP_URL!);
  expect(await runInPage(page)).toEqual(expect.objectContaining({ status: 'FAILED' }));
});
