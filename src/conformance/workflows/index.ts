/**
 * @module conformance/workflows
 * Arazzo workflows in a conformance run (--workflows FILE): the document read and every
 * criterion prepared before anything is sent, the inputs given, the secrets among them.
 */

import type { ContractDocument } from '../../openapi/document.js';
import { loadWorkflowDocument, type WorkflowDocument, WorkflowDocumentError } from './arazzo-document.js';
import { PreparedCriteria } from './criteria.js';
import { expressionProblem } from './runtime-expressions.js';
import { operationOfStep } from './step-request.js';
import { inputProblems, resolveLocalRefs, secretInputNames, workflowInputs } from './workflow-inputs.js';

export { type ArazzoDocument, parseWorkflowDocument, type WorkflowDocument, WorkflowDocumentError } from './arazzo-document.js';
export { maxStepRunsPerWorkflow, workflowsPhase } from './workflow-runner.js';

/** What runConformance takes for workflows. */
export interface WorkflowOptions {
  /** An Arazzo 1.0 file, or a document already read (parseWorkflowDocument). */
  readonly file: string | WorkflowDocument;
  /** Input values by name (--input name=value), over the inputs' defaults, for every workflow declaring them. */
  readonly inputs?: Readonly<Record<string, unknown>>;
  /** Only these workflowIds (--workflow); default: all. */
  readonly only?: readonly string[];
  /** Most bytes one step's request is built from (docs/assumptions.md A-38); default 16 MiB. */
  readonly maxRequestBytes?: number;
}

/** The workflows of a run, read and checked. */
export interface PreparedWorkflows {
  readonly document: WorkflowDocument;
  readonly criteria: PreparedCriteria;
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly only: readonly string[];
  readonly maxRequestBytes?: number;
  /** Values of inputs marked secret (format: password, writeOnly), to scrub from every report. */
  readonly secrets: readonly string[];
}

/** Reads the document, prepares its criteria and checks the selection; throws WorkflowDocumentError. */
export async function prepareWorkflows(
  options: WorkflowOptions,
  contract: Pick<ContractDocument, 'operations' | 'source'>,
): Promise<PreparedWorkflows> {
  const document = typeof options.file === 'string' ? await loadWorkflowDocument(options.file) : options.file;
  for (const workflow of document.document.workflows) {
    for (const [name, expression] of Object.entries(workflow.outputs ?? {})) {
      const problem = expressionProblem(expression);
      if (problem) throw new WorkflowDocumentError(`${document.source}: workflow '${workflow.workflowId}' output '${name}': ${problem}`);
    }
    for (const step of workflow.steps) {
      const where = `${document.source}: workflow '${workflow.workflowId}' step '${step.stepId}'`;
      if (step.workflowId === undefined && !operationOfStep(step, contract))
        throw new WorkflowDocumentError(
          `${where}: the spec (${contract.source}) has no operation ${step.operationId ?? step.operationPath}`,
        );
      for (const [name, expression] of Object.entries(step.outputs ?? {})) {
        const problem = expressionProblem(expression);
        if (problem) throw new WorkflowDocumentError(`${where} output '${name}': ${problem}`);
      }
    }
  }
  let criteria: PreparedCriteria;
  try {
    criteria = await PreparedCriteria.of(document.document);
  } catch (error) {
    throw new WorkflowDocumentError(`${document.source}: ${(error as Error).message}`);
  }
  const ids = document.document.workflows.map((workflow) => workflow.workflowId);
  const only = options.only ?? [];
  for (const id of only)
    if (!ids.includes(id)) throw new WorkflowDocumentError(`${document.source}: no workflow '${id}'; its workflows are: ${ids.join(', ')}`);
  const inputs = options.inputs ?? {};
  const secrets = new Set<string>();
  const declared = new Set<string>();
  for (const workflow of document.document.workflows) {
    let schema: unknown;
    try {
      schema = resolveLocalRefs(workflow.inputs, document.document);
    } catch (error) {
      throw new WorkflowDocumentError(`${document.source}: workflow '${workflow.workflowId}' inputs: ${(error as Error).message}`);
    }
    const values = workflowInputs(schema, inputs);
    for (const name of Object.keys(((schema as { properties?: object } | undefined)?.properties ?? {}) as object)) declared.add(name);
    const problems = only.length === 0 || only.includes(workflow.workflowId) ? inputProblems(schema, values) : undefined;
    if (problems)
      throw new WorkflowDocumentError(
        `${document.source}: workflow '${workflow.workflowId}': its inputs do not match its inputs schema: ${problems}`,
      );
    for (const name of secretInputNames(schema)) if (typeof values[name] === 'string' && values[name] !== '') secrets.add(values[name]);
  }
  for (const name of Object.keys(inputs))
    if (!declared.has(name))
      throw new WorkflowDocumentError(
        `${document.source}: no workflow has an input '${name}'; the inputs are: ${[...declared].join(', ') || '(none)'}`,
      );
  const maxRequestBytes = options.maxRequestBytes;
  if (maxRequestBytes !== undefined && !(Number.isSafeInteger(maxRequestBytes) && maxRequestBytes > 0))
    throw new RangeError(`workflows.maxRequestBytes must be a positive integer, got ${String(maxRequestBytes)}`);
  return { document, criteria, inputs, only, secrets: [...secrets], ...(maxRequestBytes === undefined ? {} : { maxRequestBytes }) };
}

/**
 * The values among `inputs` that a workflow of `file` marks secret (format: password,
 * writeOnly): what a caller outside the run (the CLI's own output, a HAR cassette) must scrub
 * too. A file that cannot be read gives none; the run reports why.
 */
export async function secretInputValues(file: string, inputs: Readonly<Record<string, unknown>>): Promise<string[]> {
  let document: WorkflowDocument;
  try {
    document = await loadWorkflowDocument(file);
  } catch {
    return [];
  }
  const secrets = new Set<string>();
  for (const workflow of document.document.workflows) {
    let schema: unknown;
    try {
      schema = resolveLocalRefs(workflow.inputs, document.document);
    } catch {
      continue;
    }
    for (const name of secretInputNames(schema)) {
      const value = inputs[name];
      if (typeof value === 'string' && value !== '') secrets.add(value);
    }
  }
  return [...secrets];
}
