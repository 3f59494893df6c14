/**
 * @module conformance/stateful/sequences
 * The sequences the stateful phase runs, one family per bug class, each made of the steps that
 * pose the question (create, replay, replay once the job is final and again after a wait,
 * conflicting reuse with a change at one pointer or of form only, the original request after the
 * 409, the second caller under the first caller's key, the same key in another form, rounds of
 * N identical creates at once, N different bodies at once, polling) with a few seeded extra
 * steps of an ordinary client around them: a create
 * under another key, a retry of the step before. The extra steps are what shrinking is for;
 * they also catch a server whose answer to the question depends on other traffic.
 */
import fc from 'fast-check';
import type { BodyFormPair } from './body-forms.js';
import type { KeyFormPair } from './key-forms.js';
import type { Step } from './model.js';

/** One family per bug class; each is a probe of its own (ProbeName), so --checks sends only what it needs. */
export const sequenceFamilies = [
  'conflict-at-depth',
  'replay-after-final',
  'key-scope',
  'key-forms',
  'concurrent-duplicates',
  'concurrent-bodies',
  'refused-then-valid',
] as const;
export type SequenceFamily = (typeof sequenceFamilies)[number];

/**
 * Rounds of identical creates at once, each under a key of its own: a race window of about a
 * millisecond is hit in most rounds when the bursts are released together (burst-gate.ts), so
 * three make a miss unlikely at little cost.
 */
export const raceRounds = 3;

/** What the questions are built from: the spec's body, found by the probe (sequence-probe.ts). */
export interface QuestionOptions {
  readonly family: SequenceFamily;
  readonly pointers: readonly string[];
  readonly otherBodyPointer?: string;
  readonly concurrency: number;
  /** Pairs of bodies that differ only in form (body-forms.ts), asked in 'conflict-at-depth'. */
  readonly bodyForms?: readonly BodyFormPair[];
  /** Pairs of key forms (key-forms.ts), asked in 'key-forms'. */
  readonly keyForms?: readonly KeyFormPair[];
  /** Whether 'replay-after-final' replays again after --replay-wait (0 turns it off). */
  readonly lateReplay?: boolean;
}

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
function questions(options: QuestionOptions): Omit<Sequence, 'core'>[] {
  const { family } = options;
  switch (family) {
    case 'conflict-at-depth':
      return [
        ...options.pointers.map((pointer) => ({
          family,
          label: `conflict at ${pointer}`,
          steps: [
            { kind: 'create', caller: 1, key: 0 },
            { kind: 'create', caller: 1, key: 0, pointer },
          ] satisfies Step[],
        })),
        // A change of form only is a conflict too; the first request still replays after the 409.
        ...(options.bodyForms ?? []).map((pair) => {
          const first: Step = pair.first
            ? { kind: 'create', caller: 1, key: 0, pointer: pair.pointer, bodyForm: pair.first }
            : { kind: 'create', caller: 1, key: 0 };
          return {
            family,
            label: `conflict: ${pair.label}`,
            steps: [
              first,
              { kind: 'create', caller: 1, key: 0, pointer: pair.pointer, bodyForm: pair.second },
              { ...first },
            ] satisfies Step[],
          };
        }),
      ];
    case 'replay-after-final':
      return [
        {
          family,
          label: 'replay after the job is final',
          steps: [
            { kind: 'create', caller: 1, key: 0 },
            { kind: 'await-final', caller: 1, key: 0 },
            { kind: 'create', caller: 1, key: 0 },
            ...(options.lateReplay
              ? ([
                  { kind: 'wait-after-final', caller: 1, key: 0 },
                  { kind: 'create', caller: 1, key: 0 },
                ] satisfies Step[])
              : []),
          ],
        },
      ];
    case 'key-forms':
      return (options.keyForms ?? []).map((pair) => ({
        family,
        label: pair.label,
        steps: [
          { kind: 'create', caller: 1, key: 0, ...(pair.first ? { keyForm: pair.first } : {}) },
          // Another body: a server that takes the two forms for one key answers 409, or the first job.
          {
            kind: 'create',
            caller: 1,
            key: 0,
            keyForm: pair.second,
            ...(options.otherBodyPointer ? { pointer: options.otherBodyPointer } : {}),
          },
        ] satisfies Step[],
      }));
    case 'concurrent-bodies':
      return [
        {
          family,
          label: `${options.concurrency} different bodies at once under one key`,
          steps: [{ kind: 'burst', caller: 1, key: 0, count: Math.min(options.concurrency, options.pointers.length + 1), different: true }],
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
          label: `${options.concurrency} identical creates at once, ${raceRounds} rounds`,
          steps: [
            ...Array.from({ length: raceRounds }, (_, round): Step[] => [
              { kind: 'burst', caller: 1, key: round, count: options.concurrency },
              { kind: 'create', caller: 1, key: round },
            ]).flat(),
            { kind: 'await-final', caller: 1, key: raceRounds - 1 },
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
export function sequencesFor(options: QuestionOptions & { seed: number }): Sequence[] {
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
