/**
 * A job widget over evidence-harness's MSW handlers (docs/frontend-tests.md, Storybook): each
 * story has an engine of its own, with the scenario it shows, and the widget creates an
 * evaluation and polls it to its end as the app would against the real service.
 */
import type { Meta, StoryObj } from '@storybook/html-vite';
// The package's build, as `evidence-harness/msw` resolves in a project that installed it.
import { createHandlers } from '../../../dist/mocks/index.js';

const evaluation = {
  profile: 'svc.payment-conformance/0.1-draft',
  operationId: 'op-2026-0001',
  instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
  policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
  evidence: [{ id: 'ev-1', kind: 'issuer_assertion' }],
};

/** Creates an evaluation, then polls its job, showing each state it reads. */
function jobWidget(): HTMLElement {
  const status = document.createElement('output');
  status.id = 'job-status';
  status.textContent = 'creating…';
  void (async () => {
    try {
      const created = await fetch('/api/v0/evaluations', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify(evaluation),
      });
      const { jobId } = (await created.json()) as { jobId: string };
      for (;;) {
        const job = (await (await fetch(`/api/v0/jobs/${jobId}`)).json()) as { status: string; evaluation?: string };
        status.textContent = [job.status, job.evaluation].filter(Boolean).join(' ');
        if (job.status === 'COMPLETE' || job.status === 'FAILED') return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } catch (error) {
      status.textContent = `error: ${(error as Error).message}`;
    }
  })();
  return status;
}

const meta: Meta = { title: 'Job status', render: jobWidget };
export default meta;

export const PolledToCompletion: StoryObj = {
  parameters: { msw: createHandlers({ baseUrl: '/api' }).handlers },
};

export const JobFailed: StoryObj = {
  parameters: { msw: createHandlers({ baseUrl: '/api', scenario: 'job-failed' }).handlers },
};
