/**
 * @module app/main
 * The page: reads its configuration, starts the in-page mock when asked, and wires the three
 * sections (evaluate, verify, errors) to the flows. `#app[data-ready=true]` tells a test (or a
 * person) that the page can be used.
 */
import { createEvidenceClient } from 'evidence-harness/client';
import { AppConfigError, readAppConfig } from './config.js';
import { type AppContext, errorDemos, runEvaluation, verifyDemoArtifact } from './flows.js';
import { element, errorDemoCard, failureCard, required, stepItem, verificationCard } from './view.js';

async function busy(buttons: readonly HTMLButtonElement[], work: () => Promise<void>): Promise<void> {
  for (const button of buttons) button.disabled = true;
  try {
    await work();
  } finally {
    for (const button of buttons) button.disabled = false;
  }
}

function wireEvaluate(context: AppContext): void {
  const button = required<HTMLButtonElement>('create');
  const status = required<HTMLOutputElement>('job-status');
  const jobId = required('job-id');
  const history = required<HTMLOListElement>('job-history');
  const notices = required<HTMLUListElement>('job-notices');
  const result = required('job-result');
  button.addEventListener('click', () =>
    busy([button], async () => {
      history.replaceChildren();
      notices.replaceChildren();
      result.replaceChildren();
      status.textContent = 'sending…';
      status.dataset.status = '';
      jobId.textContent = '—';
      const outcome = await runEvaluation(context, {
        onStep: (step) => {
          jobId.textContent = step.jobId;
          status.textContent = step.status;
          status.dataset.status = step.status;
          history.append(stepItem(step));
        },
        onNotice: (text) => notices.append(element('li', { text })),
      });
      if (outcome.kind === 'finished') {
        const { evaluation, limitations = [] } = outcome.job;
        result.append(
          element('p', {
            className: 'headline',
            text: evaluation ? `Evaluation: ${evaluation}` : `The job ${outcome.job.status} without an evaluation.`,
          }),
          ...(limitations.length ? [element('ul', {}, ...limitations.map((text) => element('li', { text })))] : []),
        );
      } else {
        status.textContent = outcome.kind === 'refused' ? 'refused' : 'gave up';
        status.dataset.status = outcome.kind;
        result.append(failureCard(outcome.failure));
      }
    }),
  );
}

function wireVerify(context: AppContext): void {
  const genuine = required<HTMLButtonElement>('verify-genuine');
  const tampered = required<HTMLButtonElement>('verify-tampered');
  const output = required('verify-result');
  const verify = (isTampered: boolean) =>
    busy([genuine, tampered], async () => {
      output.replaceChildren(element('p', { text: 'verifying…' }));
      const outcome = await verifyDemoArtifact(context, { tampered: isTampered });
      output.replaceChildren(
        outcome.kind === 'verified' ? verificationCard(outcome.result, outcome.tampered) : failureCard(outcome.failure),
      );
    });
  genuine.addEventListener('click', () => verify(false));
  tampered.addEventListener('click', () => verify(true));
}

function wireErrors(context: AppContext): void {
  const runAll = required<HTMLButtonElement>('errors-run-all');
  const cards = errorDemos.map((demo) => {
    const view = errorDemoCard(demo, () => void busy([view.button], () => run()));
    const run = async () => {
      view.output.replaceChildren(element('p', { text: 'sending…' }));
      const outcome = await demo.run(context);
      view.output.replaceChildren(
        outcome.kind === 'failure'
          ? failureCard(outcome.failure)
          : element('p', { className: 'unexpected', text: `Expected ${demo.status}, but the call succeeded with ${outcome.status}.` }),
      );
    };
    return { ...view, run };
  });
  required('error-cards').replaceChildren(...cards.map(({ card }) => card));
  runAll.addEventListener('click', () =>
    busy([runAll, ...cards.map(({ button }) => button)], async () => {
      for (const card of cards) await card.run();
    }),
  );
}

async function start(): Promise<void> {
  const app = required('app');
  let config: ReturnType<typeof readAppConfig>;
  try {
    config = readAppConfig({ search: location.search, env: import.meta.env });
  } catch (error) {
    if (!(error instanceof AppConfigError)) throw error;
    const shown = required('startup-error');
    shown.textContent = `Configuration error: ${error.message}`;
    shown.hidden = false;
    return;
  }
  const where =
    config.mock === 'msw' ? 'answered in this page by the mock (MSW service worker)' : 'sent over the network (mock or real service)';
  required('config').textContent = `API ${config.apiBaseUrl}, ${where}${config.scenario ? `, scenario ${config.scenario}` : ''}.`;
  app.dataset.mock = config.mock;
  if (config.mock === 'msw') {
    // Loaded only in this mode, so a page that talks to a real server carries no mock engine.
    const { startMockWorker } = await import('./mock-worker.js');
    await startMockWorker({ baseUrl: config.apiBaseUrl });
  }
  const context: AppContext = {
    client: createEvidenceClient({ baseUrl: config.apiBaseUrl }),
    apiBaseUrl: config.apiBaseUrl,
    ...(config.scenario ? { scenario: config.scenario } : {}),
  };
  wireEvaluate(context);
  wireVerify(context);
  wireErrors(context);
  app.dataset.ready = 'true';
}

start().catch((error: unknown) => {
  const shown = required('startup-error');
  shown.textContent = `The page could not start: ${error instanceof Error ? error.message : String(error)}`;
  shown.hidden = false;
});
