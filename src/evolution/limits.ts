/**
 * @module evolution/limits
 * The bounds of one comparison. Documents are input like any other: a hostile one may be huge,
 * nest deeply, or share nodes through YAML aliases so that walking it as a tree costs
 * exponential time. Every walk therefore pays from one budget of steps and one depth limit,
 * and stops with a DiffLimitError that says which bound it met.
 */

export interface DiffLimits {
  /** Most nodes visited over the whole comparison (schemas, operations, values compared). */
  readonly maxSteps: number;
  /** Deepest a schema may nest below its operation before the comparison gives up. */
  readonly maxDepth: number;
  /** Most changes a report keeps; the rest are counted as truncated. */
  readonly maxChanges: number;
}

export const defaultDiffLimits: DiffLimits = { maxSteps: 2_000_000, maxDepth: 64, maxChanges: 5000 };

/** Thrown when a document is beyond what the diff compares; the message names the bound. */
export class DiffLimitError extends Error {
  override readonly name = 'DiffLimitError';
}

/** The values (objects, arrays, scalars) of `value` as a tree, counted up to `limit` and no further. */
export function valueCount(value: unknown, limit: number): number {
  const stack: unknown[] = [value];
  let count = 0;
  while (stack.length > 0 && count < limit) {
    const next = stack.pop();
    count += 1;
    if (next !== null && typeof next === 'object') for (const child of Object.values(next)) stack.push(child);
  }
  return count;
}

/** Steps paid so far; each walk calls `step` once per node it visits. */
export class StepBudget {
  private used = 0;
  constructor(private readonly limits: DiffLimits) {}

  step(where: string): void {
    this.used += 1;
    if (this.used > this.limits.maxSteps)
      throw new DiffLimitError(
        `the documents take more than ${this.limits.maxSteps} steps to compare (reached at ${where.slice(0, 200)}); are they this large, or do YAML aliases repeat one part many times?`,
      );
  }

  /**
   * Pays one step for each value of `document` (a walk with its own stack, no recursion), before
   * any rule runs: every comparison reads each document at least once, so two documents whose
   * values alone pass the budget are refused in the time it takes to count them, not after the
   * rules have spent it (issue 32: two unrelated 10 MB documents took 26 to 64 s and ~950 MB).
   */
  payForValues(document: unknown, label: string): void {
    this.used += valueCount(document, this.limits.maxSteps - this.used + 1);
    if (this.used > this.limits.maxSteps)
      throw new DiffLimitError(
        `OLD and NEW together hold more than the ${this.limits.maxSteps} values and steps the diff compares (reached counting ${label}); compare smaller documents, or the parts that changed`,
      );
  }

  /**
   * Refuses now a walk that will take at least `steps` more than the budget has left, instead of
   * after spending the rest on it; pays nothing (the walk pays as it goes).
   */
  ahead(steps: number, what: string): void {
    if (this.used + steps > this.limits.maxSteps)
      throw new DiffLimitError(
        `the documents take more than ${this.limits.maxSteps} steps to compare (${what} alone would pass it); are they this large, or do YAML aliases repeat one part many times?`,
      );
  }

  /** Steps left, for counting what is ahead without counting past it. */
  get left(): number {
    return this.limits.maxSteps - this.used;
  }

  depth(depth: number, where: string): void {
    if (depth > this.limits.maxDepth)
      throw new DiffLimitError(`a schema nests more than ${this.limits.maxDepth} levels deep at ${where.slice(0, 200)}`);
  }
}
