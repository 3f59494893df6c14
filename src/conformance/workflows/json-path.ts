/**
 * @module conformance/workflows/json-path
 * The JSONPath (RFC 9535) subset Arazzo's jsonpath criteria use: `$`, `.name`, `['name']`,
 * `[index]` (negative from the end), `[*]` and `.*`, `..name` / `..*`, and filters `[?…]` over
 * the children with comparisons of singular queries (`@.a.b`, `$.x`) and literals, `!`, `&&`,
 * `||` and parentheses (strict comparison, as the RFC has it). Functions (length, count, match,
 * search, value) are not in the subset and are refused when the file is read. Every query
 * visits at most maxVisited nodes, so a body of any shape costs a bounded time.
 */
import { type ConditionNode, evaluateCondition, parseCondition } from './condition.js';

export class JsonPathError extends Error {
  override readonly name = 'JsonPathError';
}

const maxVisited = 200_000;

type Segment =
  | { readonly kind: 'child' | 'descendant'; readonly selector: Selector }
  | { readonly kind: 'filter'; readonly descendant: boolean; readonly condition: ConditionNode };

type Selector =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'wildcard' };

export interface CompiledJsonPath {
  readonly source: string;
  readonly segments: readonly Segment[];
}

function quotedName(text: string, start: number): { name: string; end: number } {
  const quote = text[start]!;
  let name = '';
  let index = start + 1;
  while (index < text.length && text[index] !== quote) {
    if (text[index] === '\\' && index + 1 < text.length) index += 1;
    name += text[index];
    index += 1;
  }
  if (index >= text.length) throw new JsonPathError(`a name opened at ${start + 1} is not closed`);
  return { name, end: index + 1 };
}

/** The index of the `]` closing the bracket opened at `start`, quotes and nested brackets skipped. */
function closingBracket(text: string, start: number): number {
  let depth = 0;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index]!;
    if (char === "'" || char === '"') index = quotedName(text, index).end - 1;
    else if (char === '[') depth += 1;
    else if (char === ']') {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  throw new JsonPathError(`a '[' at ${start + 1} is not closed`);
}

/** Parses a query starting with `root` ($ for a query, $ or @ inside a filter). */
export function compileJsonPath(source: string, roots = '$'): CompiledJsonPath {
  const text = source.trim();
  if (!roots.includes(text[0] ?? ''))
    throw new JsonPathError(`'${source.slice(0, 40)}' does not start with ${roots.split('').join(' or ')}`);
  if (text.length > 1024) throw new JsonPathError('longer than 1024 characters');
  const segments: Segment[] = [];
  let index = 1;
  while (index < text.length) {
    const descendant = text.startsWith('..', index);
    if (text[index] === '.') {
      index += descendant ? 2 : 1;
      if (text[index] === '[') continue;
      if (text[index] === '*') {
        segments.push({ kind: descendant ? 'descendant' : 'child', selector: { kind: 'wildcard' } });
        index += 1;
        continue;
      }
      const name = /^[A-Za-z_\u0080-\uffff][\w\u0080-\uffff-]*/.exec(text.slice(index))?.[0];
      if (!name) throw new JsonPathError(`a member name is expected at ${index + 1}`);
      segments.push({ kind: descendant ? 'descendant' : 'child', selector: { kind: 'name', name } });
      index += name.length;
      continue;
    }
    if (text[index] === '[') {
      const wasDescendant = text.startsWith('..', index - 2);
      const close = closingBracket(text, index);
      const inner = text.slice(index + 1, close).trim();
      index = close + 1;
      if (inner.startsWith('?')) {
        const filter = inner.slice(1).trim();
        if (/\b(length|count|match|search|value)\s*\(/.test(filter))
          throw new JsonPathError('functions (length, count, match, search, value) are not supported in filters');
        segments.push({ kind: 'filter', descendant: wasDescendant, condition: parseCondition(filter, '$@') });
        continue;
      }
      const kind = wasDescendant ? 'descendant' : 'child';
      if (inner === '*') segments.push({ kind, selector: { kind: 'wildcard' } });
      else if (/^-?\d+$/.test(inner)) segments.push({ kind, selector: { kind: 'index', index: Number(inner) } });
      else if (inner.startsWith("'") || inner.startsWith('"')) {
        const { name, end } = quotedName(inner, 0);
        if (end !== inner.length) throw new JsonPathError(`only one name per bracket is supported ('${inner.slice(0, 40)}')`);
        segments.push({ kind, selector: { kind: 'name', name } });
      } else throw new JsonPathError(`'[${inner.slice(0, 40)}]' is not supported (a name, an index, * or a ?filter)`);
      continue;
    }
    throw new JsonPathError(`unexpected '${text.slice(index, index + 20)}' at ${index + 1}`);
  }
  return { source: text, segments };
}

/** A filter's operands, compiled once each: a filter runs for every child it visits. */
const operandCache = new Map<string, CompiledJsonPath>();

function compiledOperand(text: string): CompiledJsonPath {
  let compiled = operandCache.get(text);
  if (!compiled) {
    compiled = compileJsonPath(text, '$@');
    if (operandCache.size > 256) operandCache.clear();
    operandCache.set(text, compiled);
  }
  return compiled;
}

function children(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value && typeof value === 'object') return Object.values(value);
  return [];
}

function select(value: unknown, selector: Selector): unknown[] {
  switch (selector.kind) {
    case 'wildcard':
      return children(value);
    case 'index': {
      if (!Array.isArray(value)) return [];
      const index = selector.index < 0 ? value.length + selector.index : selector.index;
      return index >= 0 && index < value.length ? [value[index]] : [];
    }
    case 'name':
      return value && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, selector.name)
        ? [(value as Record<string, unknown>)[selector.name]]
        : [];
  }
}

/** The nodes a compiled query selects in `root` (`current` is @ inside a filter). */
export function queryJsonPath(path: CompiledJsonPath, root: unknown, current: unknown = root, budget = { visited: 0 }): unknown[] {
  let nodes: unknown[] = [path.source.startsWith('@') ? current : root];
  const visit = (count: number) => {
    budget.visited += count;
    if (budget.visited > maxVisited) throw new JsonPathError(`the query visits more than ${maxVisited} values`);
  };
  const selfAndDescendants = (value: unknown): unknown[] => {
    const all: unknown[] = [];
    const stack = [value];
    while (stack.length > 0) {
      const next = stack.pop();
      all.push(next);
      visit(1);
      const inner = children(next);
      for (let index = inner.length - 1; index >= 0; index -= 1) stack.push(inner[index]);
    }
    return all;
  };
  for (const segment of path.segments) {
    const bases =
      segment.kind === 'descendant' || (segment.kind === 'filter' && segment.descendant) ? nodes.flatMap(selfAndDescendants) : nodes;
    if (segment.kind === 'filter') {
      const kept: unknown[] = [];
      for (const base of bases)
        for (const child of children(base)) {
          visit(1);
          const operand = (text: string) => {
            const found = queryJsonPath(compiledOperand(text), root, child, budget);
            return found.length === 1 ? found[0] : found.length === 0 ? undefined : found;
          };
          if (evaluateCondition(segment.condition, operand, 'strict')) kept.push(child);
        }
      nodes = kept;
    } else {
      nodes = bases.flatMap((base) => select(base, segment.selector));
      visit(nodes.length);
    }
  }
  return nodes;
}
