import { describeResponse, type Exchange, type SequenceLine } from '../exchange.js';
import { retryAfterMs } from '../http/transport.js';
import type { ProbeContext } from '../probes/probe-context.js';
import type { ArazzoDocument, Criterion, FailureAction, Step, SuccessAction, Workflow, WorkflowDocument } from './arazzo-document.js';
import { componentName } from './arazzo-document.js';
import type { PreparedCriteria } from './criteria.js';
import { type Evaluated, type ExchangeView, type ExpressionScope, evaluateExpression, resolveValue } from './runtime-expressions.js';
import { buildStepRequest, operationOfStep, stepParameters } from './step-request.js';
import { inputProblems, resolveLocalRefs, workflowInputs } from './workflow-inputs.js';

/** Step runs of one workflow, retries and gotos counted: past it, the workflow fails as a loop. */
export const maxStepRunsPerWorkflow = 1000;
/** Workflows run inside workflows (a step's workflowId, goto a workflow, dependsOn), at most this deep. */
const maxNesting = 8;
/** The longest pause a retry takes, whatever its retryAfter or the server's Retry-After says. */
const maxRetryWaitMs = 60_000;
/** Earlier steps a failure's reproduction lists. */
const maxEarlierLines = 20;

/** What the phase runs: the workflows as prepareWorkflows read them (a PreparedWorkflows). */
export interface WorkflowPhaseOptions {
  readonly document: WorkflowDocument;
  readonly criteria: PreparedCriteria;
  /** --input values, by name, for every workflow that declares the input. */
  readonly inputs: Readonly<Record<string, unknown>>;
  /** Only these workflowIds (and what they depend on); default: all. */
  readonly only?: readonly string[];
  /** Most bytes one step's request is built from; default `defaultMaxRequestBytes`. */
  readonly maxRequestBytes?: number;
}

interface WorkflowResult {
  /** passed: ended well; failed: a failure was recorded; stopped: a request could not go (counted as not sent). */
  readonly outcome: 'passed' | 'failed' | 'stopped';
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly outputs: Readonly<Record<string, unknown>>;
}

type StepEnd =
  | { readonly kind: 'next' }
  | { readonly kind: 'goto-workflow'; readonly workflowId: string }
  | { readonly kind: 'goto-step'; readonly stepId: string }
  | { readonly kind: 'end'; readonly result: WorkflowResult['outcome'] };

/** The phase's function: runs the selected workflows in document order, each dependency first and once. */
export function workflowsPhase(options: WorkflowPhaseOptions): (context: ProbeContext) => Promise<void> {
  return async (context) => {
    const runner = new WorkflowRunner(context, options);
    await runner.runAll();
  };
}

class WorkflowRunner {
  private readonly document: ArazzoDocument;
  private readonly results = new Map<string, WorkflowResult>();
  private readonly sourceDescriptions: Record<string, { url: string }>;

  constructor(
    private readonly context: ProbeContext,
    private readonly options: WorkflowPhaseOptions,
  ) {
    this.document = options.document.document;
    this.sourceDescriptions = Object.fromEntries(this.document.sourceDescriptions.map((source) => [source.name, { url: source.url }]));
  }

  async runAll(): Promise<void> {
    const only = this.options.only && this.options.only.length > 0 ? new Set(this.options.only) : undefined;
    for (const workflow of this.document.workflows) {
      if (only && !only.has(workflow.workflowId)) continue;
      if (this.results.has(workflow.workflowId)) continue;
      await this.run(workflow, {}, 0);
    }
  }

  private workflowById(workflowId: string): Workflow | undefined {
    return this.document.workflows.find((workflow) => workflow.workflowId === workflowId);
  }

  /** Runs a workflow once (a dependency already run is not run again), with `given` over its --input values. */
  private async run(workflow: Workflow, given: Readonly<Record<string, unknown>>, depth: number): Promise<WorkflowResult> {
    const done = this.results.get(workflow.workflowId);
    if (done && depth === 0) return done;
    const name = workflow.workflowId;
    if (depth > maxNesting) return this.cannotRun(workflow, `workflows nest more than ${maxNesting} deep (a workflow that calls itself?)`);
    for (const dependency of workflow.dependsOn ?? []) {
      const before = this.results.get(dependency) ?? (await this.runDependency(dependency, depth));
      if (before.outcome === 'stopped') return this.remember(name, before);
      if (before.outcome !== 'passed') return this.cannotRun(workflow, `it depends on workflow '${dependency}', which failed`);
    }
    let schema: unknown;
    try {
      schema = resolveLocalRefs(workflow.inputs, this.document);
    } catch (error) {
      return this.cannotRun(workflow, `its inputs schema cannot be read (${(error as Error).message})`);
    }
    const inputs = { ...workflowInputs(schema, this.options.inputs), ...given };
    const problems = inputProblems(schema, inputs);
    if (problems) return this.cannotRun(workflow, `its inputs do not match its inputs schema (${problems})`);
    const result = await new WorkflowRun(this, workflow, inputs, depth).run();
    return this.remember(name, result);
  }

  /** A workflow that cannot start: a failure of workflow_success_criteria on its first step, unsent. */
  private cannotRun(workflow: Workflow, problem: string): WorkflowResult {
    const step = workflow.steps[0]!;
    recordUnsentFailure(this.context, {
      workflow: workflow.workflowId,
      step: step.stepId,
      attempt: 1,
      title: `${workflow.workflowId}: did not run`,
      expected: 'the workflow can start',
      problem,
      earlier: [],
    });
    return this.remember(workflow.workflowId, { outcome: 'failed', inputs: {}, outputs: {} });
  }

  private async runDependency(workflowId: string, depth: number): Promise<WorkflowResult> {
    const dependency = this.workflowById(workflowId);
    return dependency ? this.run(dependency, {}, depth + 1) : { outcome: 'failed', inputs: {}, outputs: {} };
  }

  private remember(workflowId: string, result: WorkflowResult): WorkflowResult {
    // A refused request stops only its workflow: the next one's first request is refused as
    // cheaply when the whole run is over (budget, --max-requests, interrupt), and counted.
    this.results.set(workflowId, result);
    return result;
  }

  // What a WorkflowRun needs of the runner.
  get probe(): ProbeContext {
    return this.context;
  }
  get maxRequestBytes(): number | undefined {
    return this.options.maxRequestBytes;
  }

  get arazzo(): ArazzoDocument {
    return this.document;
  }
  get criteria(): PreparedCriteria {
    return this.options.criteria;
  }
  get sources(): Readonly<Record<string, { url: string }>> {
    return this.sourceDescriptions;
  }
  get ran(): ReadonlyMap<string, WorkflowResult> {
    return this.results;
  }
  runNested(workflowId: string, given: Readonly<Record<string, unknown>>, depth: number): Promise<WorkflowResult> {
    const workflow = this.workflowById(workflowId);
    if (!workflow) return Promise.resolve({ outcome: 'failed', inputs: {}, outputs: {} });
    return this.run(workflow, given, depth + 1);
  }
}

/** One run of one workflow: its steps' outputs, the sequence sent so far, and where it is. */
class WorkflowRun {
  private readonly steps: Record<string, { outputs: Record<string, unknown> }> = {};
  private readonly earlier: SequenceLine[] = [];
  private stepRuns = 0;

  constructor(
    private readonly runner: WorkflowRunner,
    private readonly workflow: Workflow,
    private readonly inputs: Readonly<Record<string, unknown>>,
    private readonly depth: number,
  ) {}

  private get context(): ProbeContext {
    return this.runner.probe;
  }

  scope(exchange?: ExchangeView, outputs: Readonly<Record<string, unknown>> = {}): ExpressionScope {
    const workflows: Record<string, { inputs: Readonly<Record<string, unknown>>; outputs: Readonly<Record<string, unknown>> }> = {};
    for (const [id, result] of this.runner.ran) workflows[id] = { inputs: result.inputs, outputs: result.outputs };
    return {
      inputs: this.inputs,
      steps: this.steps,
      workflows,
      outputs,
      sourceDescriptions: this.runner.sources,
      components: (this.runner.arazzo.components ?? {}) as Record<string, unknown>,
      exchange,
    };
  }

  async run(): Promise<WorkflowResult> {
    const { workflow } = this;
    let index = 0;
    while (index < workflow.steps.length) {
      const step = workflow.steps[index]!;
      const end = await this.runStep(step);
      if (end.kind === 'end') return this.finish(end.result);
      // The step's exchange is recorded before the workflow it goes to sends anything.
      if (end.kind === 'goto-workflow') return this.finish((await this.runner.runNested(end.workflowId, {}, this.depth)).outcome);
      if (end.kind === 'goto-step') {
        index = workflow.steps.findIndex((candidate) => candidate.stepId === end.stepId);
        continue;
      }
      index += 1;
    }
    return this.finish('passed');
  }

  /** The workflow's outputs, evaluated once it ends (an output that cannot be found is left out, with a note). */
  private finish(outcome: WorkflowResult['outcome']): WorkflowResult {
    const outputs: Record<string, unknown> = {};
    if (outcome === 'passed')
      for (const [name, expression] of Object.entries(this.workflow.outputs ?? {})) {
        const value = safeEvaluate(expression, this.scope());
        if (value.found) outputs[name] = value.value;
        else this.context.note(`workflow '${this.workflow.workflowId}': output '${name}' (${expression}) not found: ${value.reason}`);
      }
    return { outcome, inputs: this.inputs, outputs };
  }

  /** Runs a step, its retries included; says where the workflow goes next. */
  private async runStep(step: Step): Promise<StepEnd> {
    if (step.workflowId !== undefined) return this.runWorkflowStep(step);
    const operation = operationOfStep(step, this.context.contract);
    for (let attempt = 1; ; attempt += 1) {
      this.stepRuns += 1;
      const built = buildStepRequest({
        step,
        workflow: this.workflow,
        document: this.runner.arazzo,
        operation,
        scope: this.scope(),
        credentialHeaders: this.context.credentialHeaders,
        specSource: this.context.contract.source,
        ...(this.runner.maxRequestBytes === undefined ? {} : { maxRequestBytes: this.runner.maxRequestBytes }),
      });
      if ('problem' in built) return this.failWithoutExchange(step, attempt, built.problem);
      const exchange = await this.context.send(built.request, this.intent(step, attempt), { record: false });
      if (!exchange) return { kind: 'end', result: 'stopped' };
      const decision = this.decide(step, attempt, exchange, built.view);
      this.context.record({
        ...exchange,
        intent: {
          ...this.intent(step, attempt),
          ...(decision.failure ? { failure: decision.failure, earlier: this.earlier.slice(-maxEarlierLines) } : {}),
        },
      });
      if (decision.kind !== 'retry') {
        this.earlier.push({ id: exchange.id, caller: exchange.caller, request: exchange.request });
        return decision.end;
      }
      await this.context.sleep(decision.waitMs);
    }
  }

  private intent(step: Step, attempt: number) {
    return { kind: 'workflow-step', workflow: this.workflow.workflowId, step: step.stepId, attempt } as const;
  }

  /** What the answer means: criteria, outputs, then the first action whose criteria hold. */
  private decide(
    step: Step,
    attempt: number,
    exchange: Exchange,
    sent: Omit<ExchangeView, 'statusCode' | 'response'>,
  ):
    | { kind: 'retry'; waitMs: number; failure?: undefined }
    | { kind: 'done'; end: StepEnd; failure?: { title: string; expected: string; received: string } } {
    // $url and $request.header read the request as it went: the full URL, the caller's credentials included.
    const view: ExchangeView = {
      ...sent,
      url: exchange.request.url,
      request: { ...sent.request, headers: exchange.request.headers },
      statusCode: exchange.response?.status,
      response: exchange.response
        ? { headers: exchange.response.headers, body: exchange.response.json ?? exchange.response.bodyText }
        : undefined,
    };
    const scope = this.scope(view);
    const unmet = this.firstUnmet(step.successCriteria ?? [], scope, exchange);
    const label = `${this.workflow.workflowId} › ${step.stepId}`;
    if (!unmet) {
      const outputs = this.outputsOf(step, scope);
      if ('problem' in outputs)
        return {
          kind: 'done',
          end: { kind: 'end', result: 'failed' },
          failure: {
            title: `${label}: output ${outputs.name} not found`,
            expected: `output ${outputs.name} = ${outputs.expression}`,
            received: `${outputs.problem}; the answer: ${describeResponse(exchange).slice(0, 300)}`,
          },
        };
      this.steps[step.stepId] = { outputs: outputs.values };
      if (this.stepRuns >= maxStepRunsPerWorkflow)
        return { kind: 'done', end: { kind: 'end', result: 'failed' }, failure: loopFailure(label) };
      const action = this.firstAction(this.successActions(step), scope);
      if (!action || action.type === 'end') return { kind: 'done', end: action ? { kind: 'end', result: 'passed' } : { kind: 'next' } };
      return { kind: 'done', end: this.goto(action, step) };
    }
    const failure = {
      title: `${label}: ${unmet.criterion.condition}`,
      expected: `${describeCriterion(unmet.criterion)} holds`,
      received: `${unmet.seen}; the answer: ${describeResponse(exchange).slice(0, 300)}`,
    };
    if (this.stepRuns >= maxStepRunsPerWorkflow)
      return { kind: 'done', end: { kind: 'end', result: 'failed' }, failure: loopFailure(label) };
    const action = this.firstAction(this.failureActions(step), scope);
    if (!action || action.type === 'end') return { kind: 'done', end: { kind: 'end', result: 'failed' }, failure };
    if (action.type === 'retry') {
      // retryLimit counts retries, not attempts; one retry when it is not given (Arazzo 1.0).
      const limit = action.retryLimit ?? 1;
      if (attempt > limit)
        return {
          kind: 'done',
          end: { kind: 'end', result: 'failed' },
          failure: { ...failure, expected: `${failure.expected} within ${limit} retr${limit === 1 ? 'y' : 'ies'} (${action.name})` },
        };
      return { kind: 'retry', waitMs: retryWait(action, exchange) };
    }
    return { kind: 'done', end: this.goto(action, step) };
  }

  private firstUnmet(
    criteria: readonly Criterion[],
    scope: ExpressionScope,
    exchange: Exchange,
  ): { criterion: Criterion; seen: string } | undefined {
    // With no criteria of its own, a step succeeds when an answer came (the contract checks judge it).
    if (criteria.length === 0)
      return exchange.response ? undefined : { criterion: { condition: '$statusCode' }, seen: exchange.transportError ?? 'no answer' };
    for (const criterion of criteria) {
      const outcome = this.runner.criteria.judge(criterion, scope);
      if (!outcome.passed) return { criterion, seen: outcome.seen };
    }
    return undefined;
  }

  private successActions(step: Step): SuccessAction[] {
    return this.actions(step.onSuccess ?? this.workflow.successActions ?? [], 'successActions') as SuccessAction[];
  }

  private failureActions(step: Step): FailureAction[] {
    return this.actions(step.onFailure ?? this.workflow.failureActions ?? [], 'failureActions') as FailureAction[];
  }

  /** The actions with each `reference` replaced by its component. */
  private actions(list: readonly Record<string, unknown>[], kind: 'successActions' | 'failureActions'): Record<string, unknown>[] {
    const components = (this.runner.arazzo.components?.[kind] ?? {}) as Record<string, Record<string, unknown>>;
    return list.map((action) => {
      const name = typeof action.reference === 'string' ? componentName(action.reference, kind) : undefined;
      return name !== undefined && components[name] ? components[name] : action;
    });
  }

  private firstAction<A extends { criteria?: readonly Criterion[] | undefined }>(
    actions: readonly A[],
    scope: ExpressionScope,
  ): A | undefined {
    return actions.find((action) => (action.criteria ?? []).every((criterion) => this.runner.criteria.judge(criterion, scope).passed));
  }

  private goto(action: SuccessAction | FailureAction, step: Step): StepEnd {
    if (action.stepId !== undefined) {
      if (!this.workflow.steps.some((candidate) => candidate.stepId === action.stepId)) {
        this.context.note(
          `workflow '${this.workflow.workflowId}' step '${step.stepId}': goto '${action.stepId}', which is not a step of it`,
        );
        return { kind: 'end', result: 'failed' };
      }
      return { kind: 'goto-step', stepId: action.stepId };
    }
    return { kind: 'goto-workflow', workflowId: action.workflowId ?? '' };
  }

  /** A step that runs a workflow: its parameters are that workflow's inputs, its outputs read `$outputs`. */
  private async runWorkflowStep(step: Step): Promise<StepEnd> {
    this.stepRuns += 1;
    const given: Record<string, unknown> = {};
    for (const parameter of stepParameters(step, this.workflow, this.runner.arazzo)) {
      const value = resolveValue(parameter.value, this.scope());
      if (!value.found) return this.failWithoutExchange(step, 1, `parameter ${parameter.name}: ${value.reason}`);
      given[parameter.name] = value.value;
    }
    const result = await this.runner.runNested(step.workflowId ?? '', given, this.depth);
    if (result.outcome !== 'passed') return { kind: 'end', result: result.outcome };
    const outputs: Record<string, unknown> = {};
    for (const [name, expression] of Object.entries(step.outputs ?? {})) {
      const value = safeEvaluate(expression, this.scope(undefined, result.outputs));
      if (value.found) outputs[name] = value.value;
    }
    this.steps[step.stepId] = { outputs };
    return { kind: 'next' };
  }

  /**
   * A step that cannot be built or finished without a request of its own (a value it needs was
   * not found): recorded as an unsent step carrying the failure, so the report names it.
   */
  private failWithoutExchange(step: Step, attempt: number, problem: string): StepEnd {
    recordUnsentFailure(this.context, {
      workflow: this.workflow.workflowId,
      step: step.stepId,
      attempt,
      title: `${this.workflow.workflowId} › ${step.stepId}: cannot be built`,
      expected: 'every runtime expression of the step has a value',
      problem,
      earlier: this.earlier.slice(-maxEarlierLines),
    });
    return { kind: 'end', result: 'failed' };
  }

  /** Each output of a step, or the first that cannot be found. */
  private outputsOf(
    step: Step,
    scope: ExpressionScope,
  ): { values: Record<string, unknown> } | { name: string; expression: string; problem: string } {
    const values: Record<string, unknown> = {};
    for (const [name, expression] of Object.entries(step.outputs ?? {})) {
      const value = safeEvaluate(expression, scope);
      if (!value.found) return { name, expression, problem: value.reason };
      values[name] = value.value;
    }
    return { values };
  }
}

/**
 * Records a failure that has no answer of its own (a step that could not be built, a workflow
 * that could not start) as an unsent step carrying it, so the report names the workflow and step.
 */
function recordUnsentFailure(
  context: ProbeContext,
  failure: {
    workflow: string;
    step: string;
    attempt: number;
    title: string;
    expected: string;
    problem: string;
    earlier: readonly SequenceLine[];
  },
): void {
  context.record({
    id: 0,
    caller: 1,
    intent: {
      kind: 'workflow-step',
      workflow: failure.workflow,
      step: failure.step,
      attempt: failure.attempt,
      failure: { title: failure.title, expected: failure.expected, received: failure.problem },
      earlier: failure.earlier,
    },
    // Nothing was sent: the URL (reserved .invalid) only names the step in the reports' curl line.
    request: { method: 'GET', url: `http://not-sent.invalid/workflows/${failure.workflow}/steps/${failure.step}`, headers: {} },
    transportError: `not sent: ${failure.problem}`,
    notes: [],
    rateLimited: false,
    durationMs: 0,
  });
}

function safeEvaluate(expression: string, scope: ExpressionScope): Evaluated {
  try {
    return evaluateExpression(expression, scope);
  } catch (error) {
    return { found: false, reason: (error as Error).message };
  }
}

function loopFailure(label: string) {
  return {
    title: `${label}: more than ${maxStepRunsPerWorkflow} step runs`,
    expected: `the workflow ends within ${maxStepRunsPerWorkflow} step runs (retries and gotos counted)`,
    received: 'it was still running: a goto or retry loop that never ends?',
  };
}

function describeCriterion(criterion: Criterion): string {
  const type = typeof criterion.type === 'object' ? criterion.type.type : (criterion.type ?? 'simple');
  return type === 'simple' ? `'${criterion.condition}'` : `${type} '${criterion.condition}' on ${criterion.context}`;
}

/**
 * The pause before a retry: the action's retryAfter (seconds), or the server's Retry-After on
 * the answer when it asks for longer, at most maxRetryWaitMs (and never past the run's budget).
 */
function retryWait(action: FailureAction, exchange: Exchange): number {
  const own = (action.retryAfter ?? 0) * 1000;
  const header = exchange.response?.headers['retry-after'];
  const server = header === undefined ? 0 : retryAfterMs(header);
  return Math.min(Math.max(own, server), maxRetryWaitMs);
}
