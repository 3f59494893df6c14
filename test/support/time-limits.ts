/**
 * @module test/support/time-limits
 * The one home of every time limit in the tests: vitest's per-test and per-hook timeouts, the
 * runner's `--timeout` a test passes, and the bound a test puts on something that must happen
 * in time at all (an answer while under attack, a deadline of the product honoured). Speed is
 * never asserted here; figures belong to `npm run bench` (docs/assumptions.md A-40).
 *
 * Why these numbers: on a 2-core machine at load average 7-15 (six jobs beside the suite, the
 * machine of issue 33), a process that needs a few hundred milliseconds of CPU gets about a
 * seventh of a core and takes seconds; a local answer measured 1.1 s where it takes 5 ms idle,
 * and a child node process took up to 4 s to print its first line. Every limit below is that
 * worst case several times over, and still far below what a hang would take (for ever).
 */

/** What scheduling on a loaded machine may add to anything a test waits for, on top of the wait itself. */
export const schedulingAllowanceMs = 20_000;

/**
 * The bound on something that must happen in time: the product's own deadline (0 when it has
 * none: "an answer at all") plus the scheduling allowance. A hang breaks it; a busy machine does not.
 */
export function inTime(productDeadlineMs = 0): number {
  return productDeadlineMs + schedulingAllowanceMs;
}

/**
 * The runner's `--timeout` in tests against a local server that answers at once (the mock, a
 * hostile fixture): long enough that a loaded machine never turns a slow answer into "no answer"
 * (issue 33 saw "no answer within 1500 ms" at load 15), short enough that a server that never
 * answers costs a run a few of them, not minutes.
 */
export const runnerTimeoutMs = 8_000;

/**
 * A test's own time limit, derived from what it waits for: the sum of the waits it makes (product
 * deadlines, `--timeout`s it lets expire, child processes it starts) plus the allowance once per
 * wait, so that each wait may be slow and the test still ends by itself before vitest stops it.
 */
export function testTimeout(options: { readonly waitsMs?: readonly number[]; readonly processes?: number } = {}): number {
  const waits = options.waitsMs ?? [];
  const processes = options.processes ?? 0;
  const total = waits.reduce((sum, ms) => sum + ms, 0);
  return total + (waits.length + processes + 1) * schedulingAllowanceMs;
}

/** vitest's default per test and per hook (vitest.config.ts): one process start and a few local answers. */
export const defaultTestTimeoutMs = testTimeout({ processes: 2 });
