/**
 * @module conformance/stateful/sequences
 * The sequences the stateful phase runs, one family per bug class, each made of the steps that
 * pose the question (create, replay, replay once the job is final, conflicting reuse with a
 * change at one pointer, the second caller under the first caller's key, N identical creates at
 * once, polling) with a few seeded extra steps of an ordinary client around them: a create
 * under another key, a retry of the step before. The extra steps are what shrinking is for;
 * they also catch a server whose answer to the question depends on other traffic.
 */
import fc from 'fast-check';
import type { Step } from './model.js';

/** One family per bug class; each is a probe of its own, so --checks sends only what it needs. */
export type SequenceFamily = 'conflict-at-depth' | 'replay-after-final' | 'key-scope' | 'concurrent-duplicates' | 'refused-then-valid';

export interface Sequence {
  readonly family: SequenceFamily;
  /** Names the sequence in reports and seeds its keys. */
  readonly label: string;
  readonly steps: readonly Step[];
  /** The question's own steps, without the extra ones: what shrinking tries first. */
  readonly core: readonly Step[];
}

/** Keys of the extra steps: far from the question's own keys (0, 1). */
const extraKeyBase = 100;

/** The questions of each family, before extra steps are added. */
function questions(options: {
  family: SequenceFamily;
  pointers: readonly string[];
  otherBodyPointer?: string;
  concurrency: number;
}): Omit<Sequence, 'core'>[] {
  const { family } = options;
  switch (family) {
    case 'conflict-at-depth':
      return options.pointers.map((pointer) => ({
        family,
        label: `conflict at ${pointer}`,
        steps: [
          { kind: 'create', caller: 1, key: 0 },
          { kind: 'create', caller: 1, key: 0, pointer },
        ],
      }));
    case 'replay-after-final':
      return [
        {
          family,
          label: 'replay after the job is final',
          steps: [
            { kind: 'create', caller: 1, key: 0 },
            { kind: 'await-final', caller: 1, key: 0 },
            { kind: 'create', caller: 1, key: 0 },
          ],
        },
      ];
    case 'key-scope':
      return [
        {
          family,
          label: "second caller replays the first caller's key",
          steps: [
            { kind: 'create', caller: 1, key: 0 },
            { kind: 'create', caller: 2, key: 0 },
          ],
        },
        ...(options.otherBodyPointer
          ? [
              {
                family,
                label: "second caller reuses the first caller's key with another body",
                steps: [
                  { kind: 'create', caller: 1, key: 0 },
                  { kind: 'create', caller: 2, key: 0, pointer: options.otherBodyPointer },
                ] satisfies Step[],
              },
            ]
          : []),
      ];
    case 'refused-then-valid':
      return [
        {
          family,
          label: 'a valid create under the key of a refused one',
          steps: [
            { kind: 'create', caller: 1, key: 0, invalid: true },
            { kind: 'create', caller: 1, key: 0 },
          ],
        },
      ];
    case 'concurrent-duplicates':
      return [
        {
          family,
          label: `${options.concurrency} identical creates at once`,
          steps: [
            { kind: 'burst', caller: 1, key: 0, count: options.concurrency },
            { kind: 'create', caller: 1, key: 0 },
            { kind: 'await-final', caller: 1, key: 0 },
          ],
        },
      ];
  }
}

const extraStep = fc.record({ position: fc.nat({ max: 16 }), retry: fc.boolean() });

/**
 * The family's sequences with seeded extra steps: up to two per sequence, each a create under a
 * key of its own or a retry of the create just before it, inserted before the question's last
 * step. The same seed gives the same sequences.
 */
export function sequencesFor(options: {
  family: SequenceFamily;
  seed: number;
  pointers: readonly string[];
  otherBodyPointer?: string;
  concurrency: number;
}): Sequence[] {
  const base = questions(options);
  const extras = fc.sample(fc.array(extraStep, { maxLength: 2 }), { seed: options.seed, numRuns: Math.max(1, base.length) });
  return base.map((sequence, index) => {
    const steps = [...sequence.steps];
    for (const [number, extra] of (extras[index] ?? []).entries()) {
      const at = extra.position % steps.length;
      const before = steps[at - 1];
      const step: Step =
        extra.retry && before?.kind === 'create' ? { ...before } : { kind: 'create', caller: 1, key: extraKeyBase + index * 10 + number };
      steps.splice(at, 0, step);
    }
    return { ...sequence, steps, core: sequence.steps };
  });
}
