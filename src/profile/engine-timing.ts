/**
 * @module profile/engine-timing
 * What the mock does with a profile's timing entries (docs/profiles.md, "Jobs over time and body
 * limits"): a job's timeline moves as A-3.progression says (by reads, or by the engine's clock),
 * a final job carries limitations as A-4.limitations says, and each operation reads its body up
 * to A-13.body-limits. Nothing here runs under the default profile. Isomorphic (the engine
 * imports it).
 */
import type { ProfiledStep } from './engine-profile.js';
import type { ServerProfile } from './profile.js';

/** What a profiled COMPLETE or FAILED job says when the profile declares limitations and its scenario gave none. */
export const profiledLimitations: readonly string[] = ['Answered by the evidence-harness mock: no evidence was weighed.'];

/** Whether the profile declares an entry of this module's timeline (the engine then takes timedTimeline). */
export function shapesTimeline(profile: ServerProfile): boolean {
  return profile.declared.has('A-3.progression') || profile.declared.has('A-4.limitations');
}

/**
 * The steps as the profile times them: each step not yet reached (and not moved only by hand)
 * is reached after the reads, or the ms, of the states before it, counted from the create
 * (A-3.progression); COMPLETE and FAILED steps carry limitations as A-4.limitations says.
 * `reached` is the step the job starts at (-1: QUEUED).
 */
export function timedTimeline<Step extends ProfiledStep>(planned: {
  readonly steps: readonly Step[];
  readonly reached: number;
  readonly profile: ServerProfile;
}): readonly Step[] {
  const { steps, reached, profile } = planned;
  let timed: readonly Step[] = steps;
  const progression = profile.entries['A-3.progression'];
  if (profile.declared.has('A-3.progression') && progression.by !== 'scenario') {
    const waits = progression.ms as Readonly<Record<string, number | undefined>> | undefined;
    const readsIn = (progression.by === 'reads' ? progression.reads : {}) as Readonly<Record<string, number | undefined>>;
    let reads = 0;
    let ms = 0;
    timed = steps.map((step, index): Step => {
      const before = index === 0 ? 'QUEUED' : steps[index - 1]!.status;
      // The states a job starts past take no time: the count starts at the state it is created in.
      if (index <= reached) return step;
      reads += readsIn[before] ?? 0;
      ms += waits?.[before] ?? 0;
      if (step.at === 'manual') return step;
      // reads[S] reads answer S: the next state is answered by the read after them.
      const at = progression.by === 'reads' ? { reads: reads + 1, ...(waits ? { ms } : {}) } : { ms };
      return { ...step, at };
    });
  }
  if (!profile.declared.has('A-4.limitations')) return timed;
  const limitations = profile.entries['A-4.limitations'];
  return timed.map((step): Step => {
    // A part left out is as the scenario says.
    const declared = step.status === 'COMPLETE' ? limitations.complete : step.status === 'FAILED' ? limitations.failed : undefined;
    if (declared === 'absent' && step.limitations) {
      const { limitations: _dropped, ...rest } = step;
      return rest as Step;
    }
    if (declared === 'present' && !step.limitations?.length) return { ...step, limitations: profiledLimitations };
    return step;
  });
}

/** The body limit of `operationId` under the profile (A-13.body-limits, else A-13.body-too-large for createEvaluation), or `fallback`. */
export function profiledBodyLimit(options: {
  operationId: 'createEvaluation' | 'verifyReport';
  profile: ServerProfile;
  fallback: number;
}): number {
  const { operationId, profile, fallback } = options;
  if (profile.declared.has('A-13.body-limits')) {
    const declared = (profile.entries['A-13.body-limits'] as Readonly<Record<string, number | undefined>>)[operationId];
    if (declared !== undefined) return declared;
  }
  if (operationId === 'createEvaluation' && profile.declared.has('A-13.body-too-large'))
    return profile.entries['A-13.body-too-large'].limitBytes ?? fallback;
  return fallback;
}
