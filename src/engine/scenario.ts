/**
 * @module engine/scenario
 * The scenario language: how jobs move (timelines and outcomes), which requests get which
 * timeline (rules), and which calls get a forced error (faults). Validated by zod with errors
 * that name the path; docs/scenarios.md describes it and scenarios/scenario.schema.json is
 * published from this schema for editor completion.
 */
import * as z from 'zod';
import { type EvaluationRequest, evaluations, evidenceKinds, limits, profiles } from '../contract/index.js';
import { boundedText } from '../contract/text.js';
import type { TimelineStep } from './jobs.js';
import {
  type CompiledPattern,
  checkPattern,
  compilePattern,
  maxPatternLength,
  maxPatternProgram,
  maxRepeatCount,
  maxScenarioProgram,
  patternProblem,
} from './patterns.js';

/**
 * Bounds of one scenario, so that no scenario — from a file or the control API — can make a
 * request slow or the mock's memory large (docs/scenarios.md, limits).
 */
export const scenarioLimits = {
  /** Its JSON text, in UTF-16 units. */
  maxBytes: 256 * 1024,
  maxRules: 64,
  maxFaults: 64,
  maxPatternLength,
  maxRepeatCount,
  /** RE2 instructions of one pattern, and of all the patterns of one scenario. */
  maxPatternProgram,
  maxScenarioProgram,
} as const;

/** The states a timeline may reach in the bundled contract; a document may add others (A-28). */
const bundledStepStatuses = ['RUNNING', 'COMPLETE', 'FAILED'] as const;

/** True for a state the bundled lifecycle does not have: such a state ends a job, as FAILED does. */
export function isAddedJobState(status: string): boolean {
  return status !== 'QUEUED' && !(bundledStepStatuses as readonly string[]).includes(status);
}

const faultableOperations = ['createEvaluation', 'verifyReport', 'getJob', '*'] as const;
export const forcedStatuses = [400, 404, 409, 413, 429, 500, 503] as const;

/**
 * What each operation may be forced to answer: the error statuses the contract documents for
 * it, and the 429, 500 and 503 that docs/assumptions.md A-8 puts behind `default`. Nothing
 * else, so a forced answer never breaks the contract (verifyReport has no 413, getJob no 400).
 */
export const forcibleStatuses: Readonly<Record<Exclude<(typeof faultableOperations)[number], '*'>, readonly number[]>> = {
  createEvaluation: [400, 409, 413, 429, 500, 503],
  verifyReport: [400, 429, 500, 503],
  getJob: [404, 429, 500, 503],
};

/** True when `operationId` may be forced to answer `status`. */
export function isForcible(operationId: string, status: number): boolean {
  return (forcibleStatuses as Record<string, readonly number[] | undefined>)[operationId]?.includes(status) ?? false;
}

/** A job's plan in a scenario: its timeline, the steps after QUEUED and when each is reached. */
function jobPlanSchema() {
  const at = z
    .union([
      z.literal('manual'),
      z
        .strictObject({
          reads: z.int().min(1).optional().describe('Reached at this read of the job (1 = the first GET).'),
          ms: z.int().min(0).optional().describe("Reached this many milliseconds after creation, on the engine's clock."),
        })
        .refine((value) => value.reads !== undefined || value.ms !== undefined, { message: 'give reads, ms or both' }),
    ])
    .describe("When the step is reached: {reads, ms} (whichever comes first) or 'manual' (only when advanced by hand).");

  /**
   * A step's state: one of the bundled states, or a state a document the engine serves adds
   * (an upper-case name, checked against that document when the engine takes the scenario).
   */
  const stepStatus = z.union(
    [
      z.enum(bundledStepStatuses),
      z
        .string()
        .regex(/^(?!QUEUED$)[A-Z][A-Z0-9_]{0,63}$/)
        .describe('A job state the served document adds (it ends the job).'),
    ],
    {
      error: `must be one of ${bundledStepStatuses.map((status) => JSON.stringify(status)).join(', ')}, or a job state the served document adds`,
    },
  );

  const step = z.strictObject({
    status: stepStatus,
    evaluation: z.enum(evaluations).optional().describe('Required when status is COMPLETE; not allowed otherwise.'),
    limitations: z
      .array(boundedText(limits.limitationLength))
      .max(limits.limitationsItems.max)
      .optional()
      .describe('Only on COMPLETE or FAILED.'),
    at,
  });

  const timeline = z
    .array(step)
    .max(2)
    .superRefine((steps, ctx) => {
      steps.forEach((entry, index) => {
        if (entry.status === 'COMPLETE' && !entry.evaluation)
          ctx.addIssue({ code: 'custom', path: [index, 'evaluation'], message: 'a COMPLETE step needs an evaluation' });
        if (entry.status !== 'COMPLETE' && entry.evaluation)
          ctx.addIssue({ code: 'custom', path: [index, 'evaluation'], message: `a ${entry.status} step has no evaluation` });
        if (entry.status === 'RUNNING' && entry.limitations)
          ctx.addIssue({ code: 'custom', path: [index, 'limitations'], message: 'limitations appear only on COMPLETE or FAILED' });
      });
      const statuses = steps.map((entry) => entry.status).join(' → ');
      const allowed = ['', 'RUNNING', 'FAILED', 'RUNNING → COMPLETE', 'RUNNING → FAILED'];
      // A state a document adds ends the job, reached from QUEUED or RUNNING as FAILED is.
      const last = steps.at(-1)?.status;
      const endsInAddedState = last !== undefined && isAddedJobState(last) && (steps.length === 1 || steps[0]?.status === 'RUNNING');
      if (!allowed.includes(statuses) && !endsInAddedState) {
        ctx.addIssue({
          code: 'custom',
          message: `a job moves QUEUED → RUNNING → COMPLETE or FAILED (or QUEUED → FAILED); '${statuses}' is not allowed`,
        });
      }
      const first = steps[0]?.at;
      const second = steps[1]?.at;
      if (first && second && first !== 'manual' && second !== 'manual') {
        if ((first.reads ?? 0) > (second.reads ?? Number.POSITIVE_INFINITY) || (first.ms ?? 0) > (second.ms ?? Number.POSITIVE_INFINITY)) {
          ctx.addIssue({ code: 'custom', path: [1, 'at'], message: 'a later step cannot be reached before an earlier one' });
        }
      }
    })
    .describe('The steps after QUEUED, in order.');

  return z.strictObject({ timeline });
}

/**
 * The scenario language's zod schema, built when first used: an engine that runs only the
 * shipped scenarios never needs it (they are checked by test/engine/scenario-files.test.ts;
 * see builtin-scenarios), and building it at import would be paid by every test file.
 */
function buildScenarioSchema() {
  const jobPlan = jobPlanSchema();

  const match = z
    .strictObject({
      profile: z.enum(profiles).optional(),
      operationId: z
        .string()
        .max(maxPatternLength, { message: `a pattern has at most ${maxPatternLength} characters` })
        .superRefine((source, ctx) => {
          const problem = source.length > maxPatternLength ? undefined : patternProblem(source);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .optional()
        .describe(
          `A regular expression the request operationId must match (at most ${maxPatternLength} characters, repeat counts up to ${maxRepeatCount}; matched in linear time, so no lookaround or backreferences).`,
        ),
      evidenceKinds: z.array(z.enum(evidenceKinds)).min(1).optional().describe('The request must include evidence of each of these kinds.'),
    })
    .describe('Every condition given must hold.');

  const fault = z
    .strictObject({
      operation: z
        .enum(faultableOperations)
        .default('*')
        .describe("The operation it applies to ('*': every operation but health that may answer this status)."),
      status: z.literal(forcedStatuses).describe('The status answered, with a contract Error body.'),
      times: z.int().min(1).optional().describe('Only the next N matching calls.'),
      fraction: z.number().gt(0).max(1).optional().describe('A seeded fraction of matching calls.'),
      latencyMs: z.int().min(0).max(60_000).optional().describe('Delay before answering.'),
      retryAfter: z.int().min(0).max(86_400).optional().describe('Retry-After seconds (429 and 503 default to 1).'),
      message: boundedText({ max: 512 }).optional(),
    })
    .refine((value) => value.times === undefined || value.fraction === undefined, { message: 'give times or fraction, not both' })
    .refine(
      (value) =>
        (value.operation === '*' ? Object.keys(forcibleStatuses) : [value.operation]).some((name) => isForcible(name, value.status)),
      {
        path: ['status'],
        message: `the operation cannot answer this status under the contract; allowed: ${Object.entries(forcibleStatuses)
          .map(([name, statuses]) => `${name} ${statuses.join('/')}`)
          .join(', ')}`,
      },
    );

  return z
    .strictObject({
      $schema: z.string().optional(),
      name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, { message: 'must be lowercase letters, digits and dashes' }),
      description: z.string().max(1024).default(''),
      job: jobPlan.optional().describe("The timeline of every job unless a rule matches (default: the 'default' timeline)."),
      rules: z
        .array(z.strictObject({ match, job: jobPlan }))
        .max(scenarioLimits.maxRules, { message: `a scenario has at most ${scenarioLimits.maxRules} rules` })
        .superRefine((rules, ctx) => {
          let program = 0;
          for (const rule of rules) {
            const checked = rule.match.operationId === undefined ? undefined : checkPattern(rule.match.operationId);
            if (checked !== undefined && typeof checked !== 'string') program += checked.estimatedProgram;
          }
          if (program > maxScenarioProgram) {
            ctx.addIssue({
              code: 'custom',
              message: `the rules' patterns would compile to about ${program} instructions; a scenario's patterns have at most ${maxScenarioProgram}`,
            });
          }
        })
        .default([])
        .describe('The first rule whose match holds gives the timeline.'),
      faults: z
        .array(fault)
        .max(scenarioLimits.maxFaults, { message: `a scenario has at most ${scenarioLimits.maxFaults} faults` })
        .default([])
        .describe('The first fault that applies to a call forces its answer.'),
      latencyMs: z.int().min(0).max(60_000).default(0).describe('Delay before every answer.'),
    })
    .describe('An evidence-harness mock scenario.');
}

let builtScenarioSchema: ReturnType<typeof buildScenarioSchema> | undefined;

/** The scenario language, for `parse`, `safeParse` and `z.toJSONSchema` (built on first use). */
export const scenarioSchema = z.lazy(() => (builtScenarioSchema ??= buildScenarioSchema()));

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;
export type Fault = Scenario['faults'][number];
export type JobPlan = NonNullable<Scenario['job']>;

/** The default timeline (A-22): RUNNING at the first read or 500 ms, COMPLETE PASS at the third read or 2 s. */
export const defaultTimeline: readonly TimelineStep[] = [
  { status: 'RUNNING', at: { reads: 1, ms: 500 } },
  { status: 'COMPLETE', evaluation: 'PASS', at: { reads: 3, ms: 2000 } },
];

/** A scenario file that does not fit the language: every problem with its path. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
  constructor(
    readonly source: string,
    readonly problems: readonly { path: string; message: string }[],
  ) {
    super(`${source}: invalid scenario:\n${problems.map((problem) => `  ${problem.path}: ${problem.message}`).join('\n')}`);
  }
}

/** Every scenario parseScenario has returned. */
const parsed = new WeakSet<Scenario>();

/**
 * A scenario shipped in scenarios/, as `parseScenario` would return it, without zod: the
 * defaults the schema fills in, filled here. The shipped files are trusted because
 * test/engine/scenario-files.test.ts parses each through the schema and proves the two equal,
 * and every engine (so every test file) reads the one it starts under: building and running
 * the schema for it would be most of its set-up (docs/performance.md, "Import cost").
 */
export function shippedScenario(document: ScenarioInput): Scenario {
  const copy = structuredClone(document);
  const scenario: Scenario = {
    ...(copy.$schema === undefined ? {} : { $schema: copy.$schema }),
    name: copy.name,
    description: copy.description ?? '',
    ...(copy.job === undefined ? {} : { job: copy.job }),
    rules: copy.rules ?? [],
    faults: (copy.faults ?? []).map((fault) => ({ ...fault, operation: fault.operation ?? '*' })),
    latencyMs: copy.latencyMs ?? 0,
  };
  parsed.add(scenario);
  return scenario;
}

/** The size of `value` as JSON text, or a reason it has none. */
function jsonLength(value: unknown): number | string {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch (error) {
    return `cannot be read as JSON: ${(error as Error).message.slice(0, 200)}`;
  }
}

/**
 * Validates a parsed scenario document; `source` names it in errors (a file path, say). The
 * size comes first, so an oversized document is refused before anything walks it. Patterns
 * are checked here for what can be seen without compiling; `checkScenario` compiles them.
 */
export function parseScenario(options: { value: unknown; source: string }): Scenario {
  // A scenario this function gave out is taken as it is: parsing it again would measure the
  // defaults it filled in and make a new object, whose patterns would be compiled again.
  if (parsed.has(options.value as Scenario)) return options.value as Scenario;
  const length = jsonLength(options.value);
  if (typeof length === 'string') throw new ScenarioError(options.source, [{ path: '(root)', message: length }]);
  if (length > scenarioLimits.maxBytes) {
    throw new ScenarioError(options.source, [
      {
        path: '(root)',
        message: `the scenario is ${length} characters of JSON; at most ${scenarioLimits.maxBytes} (${scenarioLimits.maxBytes / 1024} KiB) are accepted`,
      },
    ]);
  }
  const result = scenarioSchema.safeParse(options.value);
  if (result.success) {
    parsed.add(result.data);
    return result.data;
  }
  throw new ScenarioError(
    options.source,
    // Unknown keys are quoted by zod: a problem quotes at most 200 characters of them.
    result.error.issues.slice(0, 20).map((issue) => ({
      path: issue.path.length ? issue.path.join('.').slice(0, 200) : '(root)',
      message: issue.message.slice(0, 300),
    })),
  );
}

/** The compiled patterns of a scenario's rules, index for index (undefined: the rule has none). */
type CompiledRules = readonly (CompiledPattern | undefined)[];

const compiledRules = new WeakMap<Scenario, Promise<CompiledRules>>();

function rulesOf(scenario: Scenario, source: string): Promise<CompiledRules> {
  let rules = compiledRules.get(scenario);
  if (!rules) {
    rules = Promise.allSettled(
      scenario.rules.map((rule) => (rule.match.operationId === undefined ? undefined : compilePattern(rule.match.operationId))),
    ).then((results) => {
      const problems = results.flatMap((result, index) =>
        result.status === 'rejected'
          ? [
              {
                path: `rules.${index}.match.operationId`,
                message: `is not a pattern the linear-time matcher accepts: ${(result.reason as Error).message}`,
              },
            ]
          : [],
      );
      if (problems.length > 0) throw new ScenarioError(source, problems);
      const compiled = results.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
      const program = compiled.reduce((total, pattern) => total + (pattern?.programSize ?? 0), 0);
      if (program > maxScenarioProgram) {
        throw new ScenarioError(source, [
          {
            path: 'rules',
            message: `the patterns compile to ${program} instructions; a scenario's patterns have at most ${maxScenarioProgram}`,
          },
        ]);
      }
      return compiled;
    });
    // Seen by whoever awaits it; never an unhandled rejection in between.
    rules.catch(() => undefined);
    compiledRules.set(scenario, rules);
  }
  return rules;
}

/**
 * Compiles a scenario's patterns now, so that one RE2 refuses is refused where the scenario
 * enters (the control API, a scenario file) rather than at the first request it would match.
 */
export async function checkScenario(options: { scenario: Scenario; source: string }): Promise<Scenario> {
  await rulesOf(options.scenario, options.source);
  return options.scenario;
}

/** The timeline a new job gets under `scenario` for this request. */
export async function timelineFor(options: { scenario: Scenario; request: EvaluationRequest }): Promise<readonly TimelineStep[]> {
  const { scenario, request } = options;
  if (scenario.rules.length === 0) return scenario.job?.timeline ?? defaultTimeline;
  const patterns = await rulesOf(scenario, `scenario '${scenario.name}'`);
  for (const [index, rule] of scenario.rules.entries()) {
    const { profile, evidenceKinds: kinds } = rule.match;
    if (profile && request.profile !== profile) continue;
    const pattern = patterns[index];
    if (pattern && !pattern.test(request.operationId)) continue;
    if (kinds && !kinds.every((kind) => request.evidence.some((evidence) => evidence.kind === kind))) continue;
    return rule.job.timeline;
  }
  return scenario.job?.timeline ?? defaultTimeline;
}
