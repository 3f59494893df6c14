/**
 * @module conformance/workflows/criteria
 * Arazzo criteria (successCriteria, and the criteria of actions): simple conditions, regex over
 * a context (compiled by the project's linear-time RE2 patterns, so a user's pattern cannot
 * backtrack for ever) and JSONPath over a context. Every criterion of a document is prepared
 * once, when the file is read: a syntax error or a refused pattern stops the run before it sends
 * anything. Judging a criterion says what it saw, for the failure's "received".
 */
import { type CompiledPattern, compilePattern } from '../../engine/patterns.js';
import type { ArazzoDocument, Criterion } from './arazzo-document.js';
import { type ConditionNode, evaluateCondition, operandsOf, parseCondition } from './condition.js';
import { type CompiledJsonPath, compileJsonPath, queryJsonPath } from './json-path.js';
import { type ExpressionScope, evaluateExpression } from './runtime-expressions.js';

/** The longest text a regex criterion is matched against. */
export const maxRegexContext = 64 * 1024;

type Prepared =
  | { readonly kind: 'simple'; readonly node: ConditionNode }
  | { readonly kind: 'regex'; readonly pattern: CompiledPattern }
  | { readonly kind: 'jsonpath'; readonly path: CompiledJsonPath };

export interface CriterionOutcome {
  readonly passed: boolean;
  /** What the criterion looked at, e.g. "$statusCode = 500; $response.body#/status = \"QUEUED\"". */
  readonly seen: string;
}

/** The type a criterion is read as: `type` or `type.type`, simple when absent. */
export function criterionType(criterion: Criterion): string {
  const type = criterion.type;
  return type === undefined ? 'simple' : typeof type === 'string' ? type : type.type;
}

/** A value as a failure shows it: JSON, cut to 200 characters. */
export function shown(value: unknown): string {
  if (value === undefined) return '(nothing)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}… (${text.length} characters)` : text;
}

function expressionValue(text: string, scope: ExpressionScope): unknown {
  try {
    const result = evaluateExpression(text, scope);
    return result.found ? result.value : undefined;
  } catch {
    return undefined;
  }
}

/** Every criterion of a document, prepared: conditions parsed, patterns compiled, queries read. */
export class PreparedCriteria {
  private readonly prepared = new Map<Criterion, Prepared>();

  private constructor() {}

  /** Prepares every criterion of `document`; rejects with where and why for the first bad one. */
  static async of(document: ArazzoDocument): Promise<PreparedCriteria> {
    const criteria = new PreparedCriteria();
    const lists: { where: string; criteria: readonly Criterion[] }[] = [];
    const actions = (where: string, list: readonly Record<string, unknown>[] | undefined) => {
      for (const action of list ?? [])
        if (Array.isArray(action.criteria)) lists.push({ where: `${where} action '${String(action.name)}'`, criteria: action.criteria });
    };
    for (const [name, action] of Object.entries(document.components?.successActions ?? {}))
      actions(`components.successActions.${name}`, [action]);
    for (const [name, action] of Object.entries(document.components?.failureActions ?? {}))
      actions(`components.failureActions.${name}`, [action]);
    for (const workflow of document.workflows) {
      actions(`workflow '${workflow.workflowId}'`, workflow.successActions);
      actions(`workflow '${workflow.workflowId}'`, workflow.failureActions);
      for (const step of workflow.steps) {
        const where = `workflow '${workflow.workflowId}' step '${step.stepId}'`;
        lists.push({ where: `${where} successCriteria`, criteria: step.successCriteria ?? [] });
        actions(where, step.onSuccess);
        actions(where, step.onFailure);
      }
    }
    for (const { where, criteria: list } of lists)
      for (const [index, criterion] of list.entries()) {
        try {
          criteria.prepared.set(criterion, await prepare(criterion));
        } catch (error) {
          throw new Error(`${where} [${index}] '${criterion.condition.slice(0, 80)}': ${(error as Error).message}`);
        }
      }
    return criteria;
  }

  /** Judges one criterion in a scope (the step's exchange in it). */
  judge(criterion: Criterion, scope: ExpressionScope): CriterionOutcome {
    const prepared = this.prepared.get(criterion);
    if (!prepared) throw new Error(`criterion '${criterion.condition}' was not prepared`);
    if (prepared.kind === 'simple') {
      const passed = evaluateCondition(prepared.node, (text) => expressionValue(text, scope), 'loose');
      const operands = [...new Set(operandsOf(prepared.node))];
      return {
        passed,
        seen: operands.map((operand) => `${operand} = ${shown(expressionValue(operand, scope))}`).join('; ') || '(no operand)',
      };
    }
    const context = criterion.context ?? '';
    const value = expressionValue(context, scope);
    if (prepared.kind === 'regex') {
      const text = typeof value === 'string' ? value : value === undefined ? undefined : JSON.stringify(value);
      // RE2 is linear in the text times the program: a body of megabytes would still take seconds per attempt.
      if (text !== undefined && text.length > maxRegexContext)
        return { passed: false, seen: `${context} is ${text.length} characters; a regex criterion reads at most ${maxRegexContext}` };
      return { passed: text !== undefined && prepared.pattern.test(text), seen: `${context} = ${shown(value)}` };
    }
    try {
      const nodes = value === undefined ? [] : queryJsonPath(prepared.path, value);
      return {
        passed: nodes.length > 0,
        seen: `${prepared.path.source} selected ${nodes.length} value(s) in ${context} = ${shown(value)}`,
      };
    } catch (error) {
      return { passed: false, seen: `${prepared.path.source} could not run: ${(error as Error).message}` };
    }
  }
}

async function prepare(criterion: Criterion): Promise<Prepared> {
  const type = criterionType(criterion);
  if (type === 'simple') return { kind: 'simple', node: parseCondition(criterion.condition) };
  if (!criterion.context) throw new Error(`a ${type} criterion needs a context (the value it applies to)`);
  if (type === 'regex') return { kind: 'regex', pattern: await compilePattern(criterion.condition) };
  if (type === 'jsonpath') return { kind: 'jsonpath', path: compileJsonPath(criterion.condition) };
  throw new Error(`${type} criteria are not supported (simple, regex and jsonpath are)`);
}
