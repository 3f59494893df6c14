/**
 * @module playwright
 * `evidence-harness/playwright`: Playwright Test fixtures that give each test its own session
 * on one shared mock (docs/assumptions.md A-60, A-63). Every request the test's browser context
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
  /**
   * This run's id, part of every session name (A-63). Default: `currentRunId()`, the
   * `EVIDENCE_HARNESS_RUN_ID` variable or one made per run: reruns and runs at once never share a session.
   */
  readonly runId?: string;
}

/** The environment variable a run's id is read from, and handed to the workers by (A-63). */
export const runIdVariable = 'EVIDENCE_HARNESS_RUN_ID';

const runIdPattern = /^[A-Za-z0-9]{1,12}$/;

/** Six random letters and digits: a run's id. */
function randomRunId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return [...bytes].map((byte) => alphabet[byte % alphabet.length]).join('');
}

/**
 * The id of this test run, shared by all its workers and new with every run (A-63): the
 * `EVIDENCE_HARNESS_RUN_ID` variable when set (a global setup or the config may set it; workers
 * inherit the runner's environment), else one made from the runner's process id, which every
 * worker of one run has as its parent and no two runs alive at once share. Throws a TypeError
 * for a variable that is not 1 to 12 letters and digits.
 */
export function currentRunId(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const given = env[runIdVariable];
  if (given !== undefined && given !== '') {
    if (!runIdPattern.test(given)) {
      throw new TypeError(`evidence-harness/playwright: ${runIdVariable} must be 1 to 12 letters and digits, got '${given.slice(0, 40)}'`);
    }
    return given;
  }
  return `p${process.ppid.toString(36)}`;
}

// Loaded in Playwright's runner (which lists the tests before it starts workers): the workers it
// starts inherit one random id. Loaded first in a worker, the runner's process id stands in.
if (process.env[runIdVariable] === undefined && process.env.TEST_WORKER_INDEX === undefined) process.env[runIdVariable] = randomRunId();

/** Letters and digits of `text`, every other run of characters as one '_'. */
function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
}

/**
 * A session name unique to one run of one test: the run's id, the test's file and title (cut
 * to fit, readable in the inspector), a short piece of its id (titles may repeat), the worker,
 * the retry and the repeat. Within the header's charset and 64 characters, such as
 * `k3x9qa-login-shows_the_error-1f2e3d-w0r0e0`.
 */
export function sessionNameFor(
  testInfo: Pick<TestInfo, 'testId' | 'workerIndex' | 'retry' | 'repeatEachIndex'> & Partial<Pick<TestInfo, 'title' | 'file'>>,
  options: { readonly runId?: string } = {},
): string {
  const runId = options.runId ?? currentRunId();
  if (!runIdPattern.test(runId))
    throw new TypeError(`evidence-harness/playwright: a run id is 1 to 12 letters and digits, got '${runId.slice(0, 40)}'`);
  const id = slug(testInfo.testId).slice(0, 6) || 'test';
  const suffix = `-${id}-w${testInfo.workerIndex}r${testInfo.retry}e${testInfo.repeatEachIndex}`;
  const file = slug(
    (testInfo.file ?? '')
      .split(/[\\/]/)
      .pop()
      ?.replace(/\.(spec|test)\.[cm]?[jt]sx?$|\.[cm]?[jt]sx?$/, '') ?? '',
  );
  const title = slug(testInfo.title ?? '');
  const room = 64 - runId.length - suffix.length;
  const fileRoom = Math.min(file.length, Math.max(0, Math.floor((room - 2) / 3)));
  const readable = [file.slice(0, fileRoom), title].filter((part) => part !== '').join('-');
  const middle = readable.slice(0, Math.max(0, room - 1)).replace(/[-_]+$/, '');
  return `${runId}${middle === '' ? '' : `-${middle}`}${suffix}`.slice(0, 64);
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
        const session = sessionNameFor(testInfo, options.runId === undefined ? {} : { runId: options.runId });
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
