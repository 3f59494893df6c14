/**
 * @module bench/children/fetch-loop
 * A closed-loop request driver for in-process benchmarks: `concurrency` workers each send a
 * request, read the whole answer and send the next, until the time or the count runs out.
 */

export interface LoopResult {
  readonly count: number;
  readonly failures: number;
  readonly rps: number;
}

export async function fetchLoop(options: {
  readonly send: () => Promise<Response>;
  readonly durationMs: number;
  readonly concurrency: number;
  /** A bound on requests whatever the time, so a runaway loop still ends. */
  readonly maxCount?: number;
}): Promise<LoopResult> {
  const maxCount = options.maxCount ?? 5_000_000;
  const started = performance.now();
  const deadline = started + options.durationMs;
  let count = 0;
  let failures = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline && count < maxCount) {
      const response = await options.send();
      await response.arrayBuffer();
      if (!response.ok) failures += 1;
      count += 1;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const elapsedS = (performance.now() - started) / 1000;
  return { count, failures, rps: count / elapsedS };
}
