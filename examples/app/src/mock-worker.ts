/**
 * @module app/mock-worker
 * Answers the page's API requests from the mock engine inside the page: MSW's service worker
 * with evidence-harness's handlers. The worker script (mockServiceWorker.js) is served from
 * the site's root; this example's vite config emits it from the installed msw (in your own
 * app: `npx msw init public --save`).
 */
import { type MockServiceBrowser, setupMockWorker } from 'evidence-harness/msw/browser';

export async function startMockWorker(options: { baseUrl: string }): Promise<MockServiceBrowser> {
  const mock = setupMockWorker({ baseUrl: options.baseUrl });
  await mock.worker.start({
    serviceWorker: { url: `${import.meta.env.BASE_URL}mockServiceWorker.js` },
    // Page assets and anything outside the API go to the network as usual.
    onUnhandledRequest: 'bypass',
    quiet: true,
  });
  return mock;
}
