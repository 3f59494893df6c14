/**
 * @module conformance/profile/learning/steps
 * The learner that asks: `--write-profile` adds a learning phase after the run's probes,
 * whose steps each send what one kind of profile entry needs decided and a passive run does
 * not send (two problems in one request, reads of a job at measured intervals, a body limit
 * found by bisection, the strictness probes). Every request is a `learning` intent, so
 * observe.ts reads it like any other exchange, and it counts against --max-requests.
 *
 * The phase is bounded: each step declares the most requests it may send, and the sum is the
 * budget the run prints before it starts (docs/profiles.md, "Learning").
 */
import type { ProbeContext } from '../../probes/probe-context.js';
import { credentialsStep } from './credentials.js';
import { methodsStep } from './methods.js';
import { precedenceStep } from './precedence.js';
import { strictnessStep } from './strictness.js';
import { bodyLimitStep, jobProgressionStep } from './timing.js';

export interface LearningStep {
  /** For the progress line: what the step asks. */
  readonly label: string;
  /** The most requests the step sends, whatever the server answers. */
  readonly budget: number;
  /** Sends the step's requests; `jobId` is the lifecycle probe's job, when it made one. */
  readonly run: (context: ProbeContext, state: { jobId?: string }) => Promise<void>;
}

/** The steps, in the order they run. */
export const learningSteps: readonly LearningStep[] = [
  credentialsStep,
  methodsStep,
  strictnessStep,
  precedenceStep,
  jobProgressionStep,
  bodyLimitStep,
];

/** The learning phase's request budget: the sum of its steps'. */
export function learningBudget(steps: readonly LearningStep[] = learningSteps): number {
  return steps.reduce((sum, step) => sum + step.budget, 0);
}
