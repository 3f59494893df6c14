/**
 * @module conformance/stateful/shrink
 * Shrinks a failing sequence of steps to a shortest one that still fails the same way: drop
 * one step at a time (and make a step smaller, such as a burst of fewer requests), rerun, keep
 * the change while the rerun still fails. Every rerun is real traffic, so the caller bounds it
 * (`rerun` answers `stop` when its request budget is spent) and the result says when shrinking
 * stopped early rather than at a sequence where no single drop still fails.
 */

export type Rerun<R> = { readonly ran: R } | { readonly stop: string };

export interface ShrinkOptions<S, R> {
  /** The failing sequence, and its run. */
  readonly steps: readonly S[];
  readonly result: R;
  /** Where a run fails the same way as the original (same check, same title), or undefined. */
  readonly failingIndex: (result: R) => number | undefined;
  /** Runs a candidate sequence afresh (new keys); `stop` when it may not (budget spent, run stopped). */
  readonly rerun: (steps: readonly S[]) => Promise<Rerun<R>>;
  /** A smaller form of one step, tried once no step can be dropped. */
  readonly smaller?: (step: S) => S | undefined;
  /** Sequences worth trying before dropping steps one by one (the question without its extra steps). */
  readonly firstTry?: readonly (readonly S[])[];
}

export interface Shrunk<S, R> {
  readonly steps: readonly S[];
  readonly result: R;
  readonly reruns: number;
  /** Why shrinking stopped before it was done, when it did. */
  readonly stoppedEarly?: string;
}

export async function shrinkSequence<S, R>(options: ShrinkOptions<S, R>): Promise<Shrunk<S, R>> {
  const first = options.failingIndex(options.result);
  if (first === undefined) return { steps: options.steps, result: options.result, reruns: 0 };
  // Steps after the failing one are not needed: the run already failed before them.
  let steps = options.steps.slice(0, first + 1);
  let result = options.result;
  let reruns = 0;
  const attempt = async (candidate: readonly S[]): Promise<'kept' | 'failed-otherwise' | { stop: string }> => {
    const rerun = await options.rerun(candidate);
    if ('stop' in rerun) return { stop: rerun.stop };
    reruns += 1;
    const index = options.failingIndex(rerun.ran);
    if (index === undefined) return 'failed-otherwise';
    steps = candidate.slice(0, index + 1);
    result = rerun.ran;
    return 'kept';
  };
  for (const candidate of options.firstTry ?? []) {
    if (candidate.length >= steps.length) continue;
    const outcome = await attempt(candidate);
    if (typeof outcome === 'object') return { steps, result, reruns, stoppedEarly: outcome.stop };
  }
  for (;;) {
    let changed = false;
    // The failing step itself stays: dropping it would test another step.
    for (let index = 0; index < steps.length - 1 && !changed; index += 1) {
      const outcome = await attempt(steps.filter((_, other) => other !== index));
      if (typeof outcome === 'object') return { steps, result, reruns, stoppedEarly: outcome.stop };
      changed = outcome === 'kept';
    }
    for (let index = 0; index < steps.length && !changed && options.smaller; index += 1) {
      const smaller = options.smaller(steps[index]!);
      if (smaller === undefined) continue;
      const outcome = await attempt(steps.map((step, other) => (other === index ? smaller : step)));
      if (typeof outcome === 'object') return { steps, result, reruns, stoppedEarly: outcome.stop };
      changed = outcome === 'kept';
    }
    if (!changed) return { steps, result, reruns };
  }
}
