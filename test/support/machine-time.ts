/**
 * @module test/support/machine-time
 * Time bounds that follow the machine. A test's bound is stated for an idle reference machine
 * and scaled by how much slower a fixed piece of CPU work runs here and now, measured in the same
 * test, so other work on a shared machine slows the bound as much as the code under test (a
 * bound in plain milliseconds failed `npm test` on a loaded machine: issue 28).
 */

/** What the calibration work takes on an idle reference machine (2 cores, Node 20). */
const referenceMs = 4;

/** A fixed piece of CPU work: JSON round trips of a 2,000-entry array. */
function calibrationWork(): number {
  const value = Array.from({ length: 2000 }, (_, index) => ({ id: `job_${index}`, status: 'RUNNING', reads: index, tags: ['a', 'b'] }));
  let total = 0;
  for (let round = 0; round < 6; round += 1) total += (JSON.parse(JSON.stringify(value)) as unknown[]).length;
  return total;
}

/** How many times slower than the reference machine this one is now (at least 1): the median of 5 runs. */
export async function machineSlowdown(): Promise<number> {
  // Warmed up first, so the samples time the work and not the compiler.
  for (let run = 0; run < 3; run += 1) calibrationWork();
  const samples: number[] = [];
  for (let run = 0; run < 5; run += 1) {
    const started = performance.now();
    calibrationWork();
    samples.push(performance.now() - started);
    // Between runs, let the event loop and other processes have the CPU, as the code under test does.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const median = samples.sort((a, b) => a - b)[2]!;
  return Math.max(1, median / referenceMs);
}

/** The last measurement and when it was taken: a loop of bounds measures once, not once per bound. */
let lastSlowdown: { value: number; at: number } | undefined;
const reuseForMs = 2000;

/** `ms` on the reference machine, as a bound here and now (the slowdown measured at most every 2 s). */
export async function scaledBound(ms: number): Promise<number> {
  const now = performance.now();
  if (lastSlowdown === undefined || now - lastSlowdown.at > reuseForMs) lastSlowdown = { value: await machineSlowdown(), at: now };
  return ms * lastSlowdown.value;
}
