/**
 * @module conformance/pact/path-expression
 * The path expressions Pact keys body matching rules and generators by (`$.items[*].id`,
 * `$['odd key']`, `$.*`), parsed once when the pact is read, and the weight Pact gives an
 * expression against a concrete path. A rule on a path applies to everything below it too (Pact's
 * rules cascade); where several apply, the heaviest wins, weight × length as pact-reference ranks
 * them, so `$.a.b` beats `$.a.*`, which beats `$.a`.
 */

/** One step of a concrete path into a JSON value: a property name or an array index. */
export type PathStep = string | number;

/** One token of an expression: a name, an index, or a wildcard over names or indices. */
export type ExpressionToken =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'any-field' }
  | { readonly kind: 'any-index' };

export interface PathExpression {
  /** As written in the pact, for messages. */
  readonly source: string;
  readonly tokens: readonly ExpressionToken[];
}

/** The longest expression accepted: the contract's bodies nest 5 levels deep. */
const maxTokens = 64;

/**
 * Parses an expression, or says what is wrong with it. `$` alone is the root; a bare name with
 * no `$` (as V2 header rules and some writers use) is read as `$.name`.
 */
export function parsePathExpression(source: string): PathExpression | string {
  if (source.length > 1024) return 'is longer than 1024 characters';
  let rest = source.trim();
  if (rest === '' || rest === '$') return { source, tokens: [] };
  if (!rest.startsWith('$')) rest = `$.${rest}`;
  rest = rest.slice(1);
  const tokens: ExpressionToken[] = [];
  while (rest.length > 0) {
    if (tokens.length >= maxTokens) return `has more than ${maxTokens} steps`;
    if (rest.startsWith('.')) {
      const name = /^\.([^.[\]]+)/.exec(rest)?.[1];
      if (name === undefined) return `has an empty name at '${rest.slice(0, 20)}'`;
      tokens.push(name === '*' ? { kind: 'any-field' } : { kind: 'field', name });
      rest = rest.slice(name.length + 1);
      continue;
    }
    const bracket = /^\[(?:(\d{1,9})|(\*)|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/.exec(rest);
    if (!bracket) return `cannot be read at '${rest.slice(0, 20)}' (expected .name, ['name'], [N] or [*])`;
    if (bracket[1] !== undefined) tokens.push({ kind: 'index', index: Number(bracket[1]) });
    else if (bracket[2] !== undefined) tokens.push({ kind: 'any-index' });
    else tokens.push({ kind: 'field', name: (bracket[3] ?? bracket[4] ?? '').replace(/\\(.)/g, '$1') });
    rest = rest.slice(bracket[0].length);
  }
  return { source, tokens };
}

/**
 * How well `expression` fits `path`: 0 when it does not (a token differs, or the expression is
 * longer than the path); else the product of its tokens' weights (root and exact tokens 2,
 * wildcards 1) times its length, so the most specific expression ranks highest.
 */
export function pathWeight(expression: PathExpression, path: readonly PathStep[]): number {
  const { tokens } = expression;
  if (tokens.length > path.length) return 0;
  let weight = 2;
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index]!;
    const step = path[index]!;
    // As pact-reference compares its path fragments, as text: `*` is any step, `[*]` any
    // step that reads as an index, and a name or an index equals a step of the same text.
    switch (token.kind) {
      case 'field':
        if (String(step) !== token.name) return 0;
        weight *= 2;
        break;
      case 'index':
        if (String(step) !== String(token.index)) return 0;
        weight *= 2;
        break;
      case 'any-field':
        break;
      case 'any-index':
        if (typeof step !== 'number' && !/^\d+$/.test(step)) return 0;
        break;
    }
  }
  return weight * (tokens.length + 1);
}

/** Whether the expression names exactly this path (not an ancestor of it). */
export function namesExactly(expression: PathExpression, path: readonly PathStep[]): boolean {
  return expression.tokens.length === path.length && pathWeight(expression, path) > 0;
}

/** A concrete path as a person reads it: `$.items[0].id`, `$['odd key']`. */
export function showPath(path: readonly PathStep[]): string {
  return `$${path.map((step) => (typeof step === 'number' ? `[${step}]` : /^[A-Za-z_][\w-]*$/.test(step) ? `.${step}` : `['${step.replace(/'/g, "\\'")}']`)).join('')}`;
}
