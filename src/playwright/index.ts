/**
 * @module playwright
 * `evidence-harness/playwright`: Playwright Test fixtures that give each test its own session
 * on one shared mock (docs/assumptions.md ). Every request the test's browser context
 * sends to the mock's origin carries `X-Mock-Session` (added by a route on that origin only, so
 * no other site sees the header); `mockSession` is the session's control surface, and the
 * session is reset when the test ends. Types come from `@playwright/test`, which the user
 * already has; nothing of it is imported at run time, so there is one copy of Playwright Test.
 */
import type {
  APIRequestContext,
  Fixtures,
  PlaywrightTestArgs,
  PlaywrightTestOptions,
  PlaywrightWorkerArgs,
  PlaywrightWorkerOptions,
  TestInfo,
} from '@playwright/test';
import { SessionControl } from './session-control.js';

export { type CallFilter, MockControlError, type RecordedCall, SessionControl, type SessionControlOptions } from './session-control.js';

export interface MockSessionFixtures {
  /** This test's session on the shared mock: scenario, reset, calls, jobs. */
  readonly mockSession: SessionControl;
  /** An API request context for the mock, its requests in this test's session (`baseURL` is the mock). */
  readonly mockRequest: APIRequestContext;
}

export interface MockSessionOptions {
  /**
   * The mock's address, such as 'http://127.0.0.1:4010', or a function giving it when the test
   * starts (say, from an environment variable a global setup wrote).
   */
  readonly mockUrl: string | (() => string);
  /** The control token (`X-Mock-Token`), when the mock listens beyond loopback. */
  readonly controlToken?: string;
  /** Reset the session when the test ends. Default true. */
  readonly resetAtTeardown?: boolean;
}

/**
 * A session name unique to one run of one test: its id, the worker, the retry and the repeat.
 * Within the header's charset and 64 characters.
 */
export function sessionNameFor(testInfo: Pick<TestInfo, 'testId' | 'workerIndex' | 'retry' | 'repeatEachIndex'>): string {
  const id = testInfo.testId.replace(/[^A-Za-z0-9._~-]/g, '_').slice(0, 40);
  return `pw-${id}-w${testInfo.workerIndex}-r${testInfo.retry}-e${testInfo.repeatEachIndex}`.slice(0, 64);
}

type TestArgs = PlaywrightTestArgs & PlaywrightTestOptions;
type WorkerArgs = PlaywrightWorkerArgs & PlaywrightWorkerOptions;

/**
 * Fixtures for `test.extend`: `mockSession` (automatic: every test runs in its own session,
 * whether it asks for the fixture or not) and `mockRequest`.
 *
 * `export const test = base.extend(mockSessionFixtures({ mockUrl: 'http://127.0.0.1:4010' }))`, with
 * `base` Playwright Test's own `test`: docs/playwright.md shows the whole setup.
 */
export function mockSessionFixtures(options: MockSessionOptions): Fixtures<MockSessionFixtures, object, TestArgs, WorkerArgs> {
  const mockUrl = () => {
    const url = typeof options.mockUrl === 'function' ? options.mockUrl() : options.mockUrl;
    try {
      return new URL(url).href;
    } catch {
      throw new TypeError(
        `evidence-harness/playwright: mockUrl must be an absolute URL such as 'http://127.0.0.1:4010', got '${String(url).slice(0, 100)}'`,
      );
    }
  };
  return {
    mockSession: [
      async ({ context }, use, testInfo) => {
        const url = mockUrl();
        const origin = new URL(url).origin;
        const session = sessionNameFor(testInfo);
        const control = new SessionControl({
          mockUrl: url,
          session,
          ...(options.controlToken ? { controlToken: options.controlToken } : {}),
        });
        // The mock's origin only: the header would tell any other site the test's name, and a
        // cross-origin request to a server that does not allow it would fail its preflight.
        await context.route(
          (target) => target.origin === origin,
          (route) => route.continue({ headers: { ...route.request().headers(), 'x-mock-session': session } }),
        );
        await use(control);
        if (options.resetAtTeardown ?? true) await control.reset();
      },
      { auto: true },
    ],
    mockRequest: async ({ playwright, mockSession }, use) => {
      const request = await playwright.request.newContext({
        baseURL: mockUrl(),
        extraHTTPHeaders: { ...mockSession.headers, ...(options.controlToken ? { 'x-mock-token': options.controlToken } : {}) },
      });
      await use(request);
      await request.dispose();
    },
  };
}
