/**
 * @module profile/entries-timing
 * Profile format 2's entries of a job over time and of the body limits (docs/profiles.md, "Jobs
 * over time and body limits"; docs/assumptions.md A-3, A-4, A-13): how a job moves (by reads or
 * by time, and how long it stays in each state), whether a final job carries `limitations`, and
 * each operation's body limit. Kept apart from entries.ts, which spreads them into its table.
 * Isomorphic.
 */
import { z } from 'zod';
import { bodyLimits } from '../contract/limits.js';
import { type LazyEntry, presence } from './entries.js';

/** The bounds of a progression: a job the mock keeps longer than this is a job a client gives up on. */
export const progressionBounds = {
  /** The most ms a job stays in one state (10 minutes). */
  maxStateMs: 10 * 60 * 1000,
  /** The most reads a job answers with one state. */
  maxStateReads: 100,
} as const;

/**
 * The smallest body limit a profile may declare for an operation: a limit below it would refuse
 * the smallest requests (verifyReport's documented example is a few hundred bytes).
 */
export const minOperationLimitBytes = 16 * 1024;

/** The states a job waits in before it ends: the keys of a progression. */
const waitingStates = (value: z.ZodType) => z.strictObject({ QUEUED: value.optional(), RUNNING: value.optional() });

const stateMs = () =>
  z
    .number()
    .int()
    .min(0)
    .max(progressionBounds.maxStateMs, { error: `at most ${progressionBounds.maxStateMs} ms (10 minutes) in one state` });
const stateReads = () =>
  z
    .number()
    .int()
    .min(0)
    .max(progressionBounds.maxStateReads, { error: `at most ${progressionBounds.maxStateReads} reads in one state` });

const limitBytes = (operation: string) =>
  z
    .number()
    .int()
    .min(minOperationLimitBytes, { error: `a ${operation} body limit is at least ${minOperationLimitBytes} bytes (16 KiB)` })
    .max(bodyLimits.maxDocumentBodyBytes, {
      error: (issue) =>
        `limit ${String(issue.input)} is over the largest body the mock reads: at most ${bodyLimits.maxDocumentBodyBytes} bytes (16 MiB)`,
    })
    .describe(`The ${operation} body limit in bytes: a larger body is refused.`);

/** The timing entries, spread at the end of entryTable. */
export const timingEntries = {
  'A-3.progression': {
    since: 2,
    schema: () =>
      z
        .discriminatedUnion('by', [
          z
            .strictObject({ by: z.literal('scenario') })
            .describe(
              "As the mock's scenario in force times its jobs (the default scenario: RUNNING at the first read or after 500 ms, COMPLETE at the third or after 2000 ms, whichever comes first).",
            ),
          z
            .strictObject({
              by: z.literal('reads').describe('The job moves when it is read (getJob).'),
              reads: waitingStates(stateReads()).describe(
                'Per state, how many reads answer it before the job moves on (QUEUED: 0 moves at the first read).',
              ),
              ms: waitingStates(stateMs())
                .optional()
                .describe('And, when given, per state the ms after which it moves on unread: whichever comes first.'),
            })
            .describe('Moved by reads (and, with ms, by time: whichever comes first).'),
          z
            .strictObject({
              by: z.literal('time').describe('The job moves with time, however often it is read.'),
              ms: waitingStates(stateMs()).describe('Per state, the ms a job stays in it (measured from the create).'),
            })
            .describe('Moved by time.'),
        ])
        .describe(
          "How a job moves from state to state (A-3, A-22): by reads or by time, and how long it stays in each; by scenario (the default): as the mock's scenario times it.",
        ),
  },
  'A-4.limitations': {
    since: 2,
    schema: () =>
      z
        .strictObject({
          complete: presence().optional().describe('Whether a COMPLETE job carries limitations (default: as the scenario says).'),
          failed: presence().optional().describe('Whether a FAILED job carries limitations (default: as the scenario says).'),
        })
        .describe("When a final Job carries limitations; a part left out is as the mock's scenario says (the default scenario puts none)."),
  },
  'A-13.body-limits': {
    since: 2,
    schema: () =>
      z
        .strictObject({
          createEvaluation: limitBytes('createEvaluation').optional(),
          verifyReport: limitBytes('verifyReport').optional(),
        })
        .describe(
          "Each operation's body limit in bytes, refused over it as A-13.body-too-large says; an operation left out keeps the served contract's (bundled: 2 MiB, 16 MiB).",
        ),
  },
} as const satisfies Record<string, LazyEntry>;

/** The timing entries' values as ruleProblems reads them (a partial profile, before defaults). */
interface TimingValues {
  readonly 'A-13.body-too-large'?: { readonly limitBytes?: number | undefined };
  readonly 'A-13.body-limits'?: { readonly createEvaluation?: number | undefined; readonly verifyReport?: number | undefined };
}

/** The rules between the timing entries and the contract that their shapes cannot say. */
export function timingRuleProblems(
  entries: TimingValues,
  bounds: { readonly largestValidCreateBytes: number },
): { entry: string; message: string }[] {
  const problems: { entry: string; message: string }[] = [];
  const create = entries['A-13.body-limits']?.createEvaluation;
  if (create !== undefined && create < bounds.largestValidCreateBytes)
    problems.push({
      entry: 'A-13.body-limits',
      message: `createEvaluation ${create} would refuse a valid request: the largest valid createEvaluation body is ${bounds.largestValidCreateBytes} bytes (the contract's limits allow it)`,
    });
  const older = entries['A-13.body-too-large']?.limitBytes;
  if (create !== undefined && older !== undefined && older !== create)
    problems.push({
      entry: 'A-13.body-limits',
      message: `createEvaluation ${create} differs from A-13.body-too-large's limitBytes ${older}: declare the limit once (or the same in both)`,
    });
  return problems;
}
