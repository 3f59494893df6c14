/**
 * @module conformance/workflows/arazzo-document
 * An Arazzo 1.0 document as the workflow runner reads it: parsed with the project's YAML parser
 * under hard bounds (size, aliases, depth, node count), its structure checked by a zod schema of
 * the Arazzo 1.0 objects the runner executes (an unknown field is refused unless it is an `x-`
 * extension, so a misspelt `sucessCriteria` is an error, not a step that always passes), then
 * the cross-references checked: step and workflow ids, goto targets, component references.
 * Every problem is a WorkflowDocumentError naming where it is; the CLI exits 2 on it.
 */
import { parse } from 'yaml';
import { z } from 'zod';
import { shapeBreach } from '../../contract/document-budget.js';
import { DocumentFileError, readDocumentFile } from '../../documents/index.js';
import { nestingProblem } from '../../documents/nesting-scan.js';

/** Thrown for a workflow file that cannot be run; `message` says where and why. */
export class WorkflowDocumentError extends Error {
  override readonly name = 'WorkflowDocumentError';
}

/** The largest workflow file read (a workflow file is hand-written; megabytes are a mistake or an attack). */
export const maxWorkflowFileBytes = 2 * 1024 * 1024;
const maxDepth = 64;
const maxNodes = 200_000;
/** YAML aliases expanded at most: a "billion laughs" document stops here. */
const maxAliases = 100;

/** Ids as Arazzo recommends them ([A-Za-z0-9_-]), so that they print and travel in expressions unchanged. */
const id = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be 1 to 128 of A-Z a-z 0-9 _ -');
const name = z.string().min(1).max(256);
const expression = z.string().min(1).max(2048);

/** An Arazzo object: the listed fields, plus any `x-` extension; another field is refused by name. */
function arazzoObject<Shape extends z.ZodRawShape>(shape: Shape) {
  return z
    .object(shape)
    .catchall(z.unknown())
    .superRefine((value, context) => {
      for (const key of Object.keys(value)) {
        if (!(key in shape) && !key.startsWith('x-'))
          context.addIssue({ code: 'custom', path: [key], message: `unknown field '${key}' (an extension starts with x-)` });
      }
    });
}

const criterionType = z.union([
  z.enum(['simple', 'regex', 'jsonpath', 'xpath']),
  arazzoObject({ type: z.enum(['jsonpath', 'xpath']), version: z.string() }),
]);

const criterion = arazzoObject({
  context: expression.optional(),
  condition: z.string().min(1).max(1024),
  type: criterionType.optional(),
});

const reusable = arazzoObject({ reference: expression, value: z.unknown().optional() });

const parameter = z.union([
  arazzoObject({ name, in: z.enum(['path', 'query', 'header', 'cookie']).optional(), value: z.unknown() }),
  reusable,
]);

const successAction = arazzoObject({
  name,
  type: z.enum(['end', 'goto']),
  workflowId: z.string().optional(),
  stepId: z.string().optional(),
  criteria: z.array(criterion).max(64).optional(),
});

const failureAction = arazzoObject({
  name,
  type: z.enum(['end', 'goto', 'retry']),
  workflowId: z.string().optional(),
  stepId: z.string().optional(),
  retryAfter: z.number().min(0).max(3600).optional(),
  retryLimit: z.number().int().min(0).max(10_000).optional(),
  criteria: z.array(criterion).max(64).optional(),
});

const requestBody = arazzoObject({
  contentType: z.string().max(256).optional(),
  payload: z.unknown().optional(),
  replacements: z.array(arazzoObject({ target: z.string().max(1024), value: z.unknown() })).optional(),
});

const step = arazzoObject({
  stepId: id,
  description: z.string().optional(),
  operationId: z.string().min(1).max(512).optional(),
  operationPath: z.string().min(1).max(2048).optional(),
  workflowId: z.string().min(1).max(512).optional(),
  parameters: z.array(parameter).max(256).optional(),
  requestBody: requestBody.optional(),
  successCriteria: z.array(criterion).max(64).optional(),
  onSuccess: z
    .array(z.union([successAction, reusable]))
    .max(64)
    .optional(),
  onFailure: z
    .array(z.union([failureAction, reusable]))
    .max(64)
    .optional(),
  outputs: z.record(z.string(), expression).optional(),
});

const workflow = arazzoObject({
  workflowId: id,
  summary: z.string().optional(),
  description: z.string().optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  dependsOn: z.array(z.string()).max(64).optional(),
  steps: z.array(step).min(1).max(1000),
  successActions: z
    .array(z.union([successAction, reusable]))
    .max(64)
    .optional(),
  failureActions: z
    .array(z.union([failureAction, reusable]))
    .max(64)
    .optional(),
  outputs: z.record(z.string(), expression).optional(),
  parameters: z.array(parameter).max(256).optional(),
});

const arazzoDocument = arazzoObject({
  arazzo: z.string().regex(/^1\.0\.\d+$/, "must be an Arazzo 1.0 version, such as '1.0.1'"),
  info: arazzoObject({ title: z.string(), summary: z.string().optional(), description: z.string().optional(), version: z.string() }),
  sourceDescriptions: z
    .array(arazzoObject({ name: id, url: z.string().min(1), type: z.enum(['openapi', 'arazzo']).optional() }))
    .min(1)
    .max(32),
  workflows: z.array(workflow).min(1).max(256),
  components: arazzoObject({
    inputs: z.record(z.string(), z.unknown()).optional(),
    parameters: z.record(z.string(), parameter).optional(),
    successActions: z.record(z.string(), successAction).optional(),
    failureActions: z.record(z.string(), failureAction).optional(),
  }).optional(),
});

export type ArazzoDocument = z.infer<typeof arazzoDocument>;
export type Workflow = ArazzoDocument['workflows'][number];
export type Step = Workflow['steps'][number];
export type Criterion = z.infer<typeof criterion>;
export type ParameterObject = z.infer<typeof parameter>;
export type SuccessAction = z.infer<typeof successAction>;
export type FailureAction = z.infer<typeof failureAction>;
export type Reusable = z.infer<typeof reusable>;

/** A workflow document, read and checked: what runConformance's `workflows` takes. */
export interface WorkflowDocument {
  /** Where it was read from, for the report. */
  readonly source: string;
  readonly document: ArazzoDocument;
}

/** How deep and how large a parsed value is, stopping at the first bound passed. */
function shapeProblem(value: unknown): string | undefined {
  const breach = shapeBreach(value, { maxDepth, maxNodes });
  if (!breach) return undefined;
  return breach.bound === 'values' ? `it holds more than ${maxNodes} values` : `it is nested more than ${maxDepth} levels deep`;
}

function issuePath(path: readonly PropertyKey[]): string {
  return (
    path
      .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
      .join('')
      .replace(/^\./, '') || '(root)'
  );
}

/** Parses and checks a workflow document's text; `source` names it in every message. */
export function parseWorkflowDocument(text: string, source: string): WorkflowDocument {
  if (Buffer.byteLength(text) > maxWorkflowFileBytes)
    throw new WorkflowDocumentError(`${source}: larger than ${maxWorkflowFileBytes} bytes; a workflow file is at most that`);
  // Before the parser: 100,000 '[' (or a thousand '- ' on one line) exhaust the yaml package's
  // stack, and V8 then aborts the whole process compiling a RegExp ("RegExpCompiler Allocation
  // failed"), which no catch sees. The scan is the one loader's (src/documents), in one pass.
  const nesting = nestingProblem(text);
  if (nesting) throw new WorkflowDocumentError(`${source}: ${nesting}; it is not read (a parser would exhaust its stack)`);
  let parsed: unknown;
  try {
    parsed = parse(text, { maxAliasCount: maxAliases, uniqueKeys: true, prettyErrors: false });
  } catch (error) {
    // A document nested thousands of levels deep overflows the parser's stack: a RangeError.
    const message = error instanceof RangeError ? 'nested too deeply to parse' : String((error as Error).message).split('\n')[0];
    throw new WorkflowDocumentError(`${source}: not valid YAML or JSON (${message?.slice(0, 300)})`);
  }
  const tooLarge = shapeProblem(parsed);
  if (tooLarge) throw new WorkflowDocumentError(`${source}: ${tooLarge}`);
  const result = arazzoDocument.safeParse(parsed);
  if (!result.success) {
    const problems = result.error.issues.slice(0, 5).map((issue) => `${issuePath(issue.path)}: ${issue.message}`);
    const more = result.error.issues.length > 5 ? ` (and ${result.error.issues.length - 5} more)` : '';
    throw new WorkflowDocumentError(`${source}: not an Arazzo 1.0 document we can run: ${problems.join('; ')}${more}`);
  }
  const document = result.data;
  const crossProblems = referenceProblems(document);
  if (crossProblems.length > 0) throw new WorkflowDocumentError(`${source}: ${crossProblems.slice(0, 5).join('; ')}`);
  return { source, document };
}

/**
 * Reads a workflow file (at most maxWorkflowFileBytes) and checks it. Read as every document from
 * outside is (documents/regular-file, the loader's file reader): a regular file only, never a FIFO
 * or a device that would hold the run, bounded before it is read.
 */
export async function loadWorkflowDocument(file: string): Promise<WorkflowDocument> {
  let text: string;
  try {
    ({ text } = await readDocumentFile({ path: file, maxBytes: maxWorkflowFileBytes }));
  } catch (error) {
    if (error instanceof DocumentFileError) throw new WorkflowDocumentError(error.message);
    throw error;
  }
  return parseWorkflowDocument(text, file);
}

/** The name a `$components.<kind>.<name>` reference points at, or undefined for another reference. */
export function componentName(reference: string, kind: 'parameters' | 'successActions' | 'failureActions'): string | undefined {
  const prefix = `$components.${kind}.`;
  return reference.startsWith(prefix) ? reference.slice(prefix.length) : undefined;
}

/** What refers to something that is not there: duplicate ids, goto targets, components, step targets. */
function referenceProblems(document: ArazzoDocument): string[] {
  const problems: string[] = [];
  const workflowIds = new Set<string>();
  for (const workflow of document.workflows) {
    if (workflowIds.has(workflow.workflowId)) problems.push(`workflowId '${workflow.workflowId}' is used twice`);
    workflowIds.add(workflow.workflowId);
  }
  const components = document.components ?? {};
  const checkReference = (where: string, reference: string, kind: 'parameters' | 'successActions' | 'failureActions') => {
    const found = componentName(reference, kind);
    if (found === undefined || !Object.hasOwn(components[kind] ?? {}, found))
      problems.push(`${where}: reference '${reference}' is not a $components.${kind} entry of this document`);
  };
  for (const workflow of document.workflows) {
    const where = `workflow '${workflow.workflowId}'`;
    const stepIds = new Set<string>();
    for (const step of workflow.steps) {
      if (stepIds.has(step.stepId)) problems.push(`${where}: stepId '${step.stepId}' is used twice`);
      stepIds.add(step.stepId);
    }
    for (const dependency of workflow.dependsOn ?? [])
      if (!workflowIds.has(dependency)) problems.push(`${where}: dependsOn '${dependency}', which is not a workflow of this document`);
    const checkAction = (at: string, action: Record<string, unknown>, kind: 'successActions' | 'failureActions') => {
      if (typeof action.reference === 'string') return checkReference(at, action.reference, kind);
      if (action.type === 'goto') {
        if ((action.stepId === undefined) === (action.workflowId === undefined))
          problems.push(`${at}: a goto action names exactly one of stepId and workflowId`);
        else if (typeof action.stepId === 'string' && !stepIds.has(action.stepId))
          problems.push(`${at}: goto step '${action.stepId}', which is not a step of this workflow`);
        else if (typeof action.workflowId === 'string' && !workflowIds.has(action.workflowId))
          problems.push(`${at}: goto workflow '${action.workflowId}', which is not a workflow of this document`);
      }
    };
    for (const action of workflow.successActions ?? []) checkAction(`${where} successActions`, action, 'successActions');
    for (const action of workflow.failureActions ?? []) checkAction(`${where} failureActions`, action, 'failureActions');
    for (const parameter of workflow.parameters ?? [])
      if ('reference' in parameter && typeof parameter.reference === 'string')
        checkReference(`${where} parameters`, parameter.reference, 'parameters');
    for (const step of workflow.steps) {
      const at = `${where} step '${step.stepId}'`;
      const targets = [step.operationId, step.operationPath, step.workflowId].filter((target) => target !== undefined);
      if (targets.length !== 1) problems.push(`${at}: names exactly one of operationId, operationPath and workflowId`);
      if (step.workflowId !== undefined && !workflowIds.has(step.workflowId))
        problems.push(`${at}: workflowId '${step.workflowId}' is not a workflow of this document`);
      for (const action of step.onSuccess ?? []) checkAction(`${at} onSuccess`, action, 'successActions');
      for (const action of step.onFailure ?? []) checkAction(`${at} onFailure`, action, 'failureActions');
      for (const parameter of step.parameters ?? [])
        if ('reference' in parameter && typeof parameter.reference === 'string')
          checkReference(`${at} parameters`, parameter.reference, 'parameters');
        else if (step.workflowId === undefined && !('in' in parameter && parameter.in))
          problems.push(`${at}: parameter '${(parameter as { name: string }).name}' needs 'in' (path, query, header or cookie)`);
    }
  }
  return problems;
}
