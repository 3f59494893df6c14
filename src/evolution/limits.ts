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

  depth(depth: number, where: string): void {
    if (depth > this.limits.maxDepth)
      throw new DiffLimitError(`a schema nests more than ${this.limits.maxDepth} levels deep at ${where.slice(0, 200)}`);
  }
}
