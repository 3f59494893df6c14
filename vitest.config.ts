import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { defaultTestTimeoutMs, inTime } from './test/support/time-limits.js';

/**
 * Two projects (docs/development.md, docs/assumptions.md A-40):
 * - `behaviour`: what `npm test` runs, the suites a change must pass, in minutes;
 * - `slow`: the long runs `npm run test:slow` adds (CI runs both): attacks, fuzz and load,
 *   hostile servers, the package installed from a tarball, the bench's smoke run, and the
 *   second opinions of other tools (Prism, Mockoon, Redocly's Respect, Pact's reference
 *   verifier, swagger-mock-validator), which test those tools' start-up as much as the harness.
 */
export const slow = [
  'test/hardening/**/*.test.ts',
  'test/package/**/*.test.ts',
  'test/bench/**/*.test.ts',
  'test/conformance/hostile-servers.test.ts',
  'test/conformance/third-party.test.ts',
  'test/conformance/prism.test.ts',
  'test/conformance/pact-reference.test.ts',
  'test/pact/swagger-mock-validator.test.ts',
  'test/proxy/proxy-hardening.test.ts',
  // Real time is the point (issue 43): a body's pace and a socket's deadlines, judged on the wall clock.
  'test/conformance/transport-real-time.test.ts',
  'test/server/mock-server-deadlines.test.ts',
  'test/conformance/fault-zoo-real-time.test.ts',
  'test/conformance/max-response-time.test.ts',
  'test/workflows/respect-and-cli.test.ts',
  // Two runner runs in-process per rule pair of `diff` (the coverage test beside them is fast).
  'test/evolution/runner-agreement-request.test.ts',
  'test/evolution/runner-agreement-response.test.ts',
  'test/evolution/runner-agreement-document.test.ts',
  // MCP's own inspector (inspector-cli) starting `evidence-harness mcp` once per tool call.
  'test/mcp/inspector-cli.test.ts',
  // Builds the Storybook example (its own install, examples/storybook) and loads it in Chromium.
  'test/examples/storybook.test.ts',
];

export default defineConfig({
  test: {
    // At least two test files at once, even on two cores (vitest's own default is cores - 1, so
    // one): most files spend their time waiting on child processes and sockets, and a second
    // worker fills that time. The behaviour project needs about 10 CPU-minutes; one worker ran it
    // in 12.7 min and two in 12.6 min at load average 7 (docs/development.md has the quiet times).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // One home for time limits: test/support/time-limits.ts.
    testTimeout: defaultTestTimeoutMs,
    hookTimeout: defaultTestTimeoutMs,
    // expect.poll's own default gives up after 1 s of wall-clock time: a race with a busy machine.
    // A poll waits for something that must happen at all, so it gets the hang bound (issue 43).
    expect: { poll: { timeout: inTime() } },
    projects: [
      {
        extends: true,
        test: { name: 'behaviour', include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'mocks/**/*.test.ts'], exclude: slow },
      },
      // Their concurrent cases start a process each: three at once, not five, on a 2-core machine.
      { extends: true, test: { name: 'slow', include: slow, maxConcurrency: 3 } },
    ],
  },
});
