/**
 * @module conformance/workflows/condition
 * The condition language of Arazzo's simple criteria (`$statusCode == 200 && $response.body#/status
 * != 'QUEUED'`), also used for the filters of the JSONPath subset: literals (numbers, 'strings',
 * true, false, null), operands (a runtime expression, or a JSONPath query starting with $ or @),
 * `== != < <= > >=`, `!`, `&&`, `||` and parentheses. A recursive-descent parser with hard
 * bounds (length, tokens, nesting), no eval: a hostile condition is an error, never a hang.
 */

export type ConditionNode =
  | { readonly kind: 'literal'; readonly value: unknown }
  | { readonly kind: 'operand'; readonly text: string }
  | { readonly kind: 'not'; readonly operand: ConditionNode }
  | { readonly kind: 'and' | 'or'; readonly left: ConditionNode; readonly right: ConditionNode }
  | { readonly kind: 'compare'; readonly operator: ComparisonOperator; readonly left: ConditionNode; readonly right: ConditionNode };

export type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

/** Thrown for a condition that cannot be read; `message` says where. */
export class ConditionSyntaxError extends Error {
  override readonly name = 'ConditionSyntaxError';
}

const maxConditionLength = 1024;
const maxTokens = 256;
const maxNesting = 32;

type Token =
  | { readonly kind: 'literal'; readonly value: unknown; readonly at: number }
  | { readonly kind: 'operand'; readonly text: string; readonly at: number }
  | { readonly kind: 'symbol'; readonly text: string; readonly at: number };

const symbols = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '(', ')'] as const;
/** Where an operand ends: whitespace or an operator's first character. */
const operandEnd = /[\s()<>=!&|]/;

function tokenize(text: string, operandStarts: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < text.length) {
    if (tokens.length > maxTokens) throw new ConditionSyntaxError(`more than ${maxTokens} tokens`);
    const char = text[index]!;
    if (/\s/.test(char)) {
      index += 1;
      continue;
    }
    const symbol = symbols.find((candidate) => text.startsWith(candidate, index));
    if (symbol) {
      tokens.push({ kind: 'symbol', text: symbol, at: index });
      index += symbol.length;
      continue;
    }
    if (char === "'" || char === '"') {
      let value = '';
      let end = index + 1;
      for (;;) {
        if (end >= text.length) throw new ConditionSyntaxError(`a string opened at ${index + 1} is not closed`);
        const next = text[end]!;
        // '' inside a string is one quote (Arazzo's escape); \' too, as many write it.
        if (next === char && text[end + 1] === char) {
          value += char;
          end += 2;
        } else if (next === '\\' && end + 1 < text.length) {
          value += text[end + 1];
          end += 2;
        } else if (next === char) break;
        else {
          value += next;
          end += 1;
        }
      }
      tokens.push({ kind: 'literal', value, at: index });
      index = end + 1;
      continue;
    }
    const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(index, index + 64));
    if (number) {
      tokens.push({ kind: 'literal', value: Number(number[0]), at: index });
      index += number[0].length;
      continue;
    }
    const word = /^(true|false|null)(?![\w$])/.exec(text.slice(index, index + 6));
    if (word) {
      tokens.push({ kind: 'literal', value: word[1] === 'null' ? null : word[1] === 'true', at: index });
      index += word[0].length;
      continue;
    }
    if (operandStarts.includes(char)) {
      let end = index + 1;
      // A quoted member name in brackets (@['a b']) may hold what otherwise ends an operand.
      while (end < text.length && !operandEnd.test(text[end]!)) {
        if (text[end] === "'" || text[end] === '"') {
          const close = text.indexOf(text[end]!, end + 1);
          end = close === -1 ? text.length : close + 1;
        } else end += 1;
      }
      tokens.push({ kind: 'operand', text: text.slice(index, end), at: index });
      index = end;
      continue;
    }
    throw new ConditionSyntaxError(
      `unexpected '${text.slice(index, index + 20)}' at ${index + 1} (a string literal is quoted: 'COMPLETE'; an operand starts with ${[...operandStarts].join(' or ')})`,
    );
  }
  return tokens;
}

/** Parses a condition; `operandStarts` are the characters an operand begins with ('$' or '$@'). */
export function parseCondition(text: string, operandStarts = '$'): ConditionNode {
  if (text.length > maxConditionLength) throw new ConditionSyntaxError(`longer than ${maxConditionLength} characters`);
  const tokens = tokenize(text, operandStarts);
  let position = 0;
  const peek = (): Token | undefined => tokens[position];
  const isSymbol = (token: Token | undefined, ...wanted: string[]) => token?.kind === 'symbol' && wanted.includes(token.text);
  const where = () => {
    const token = peek();
    return token ? `'${token.kind === 'literal' ? JSON.stringify(token.value) : token.text}' at ${token.at + 1}` : 'the end';
  };
  const or = (depth: number): ConditionNode => {
    let left = and(depth);
    while (isSymbol(peek(), '||')) {
      position += 1;
      left = { kind: 'or', left, right: and(depth) };
    }
    return left;
  };
  const and = (depth: number): ConditionNode => {
    let left = comparison(depth);
    while (isSymbol(peek(), '&&')) {
      position += 1;
      left = { kind: 'and', left, right: comparison(depth) };
    }
    return left;
  };
  const comparison = (depth: number): ConditionNode => {
    const left = unary(depth);
    const token = peek();
    if (token?.kind === 'symbol' && ['==', '!=', '<', '<=', '>', '>='].includes(token.text)) {
      position += 1;
      return { kind: 'compare', operator: token.text as ComparisonOperator, left, right: unary(depth) };
    }
    return left;
  };
  const unary = (depth: number): ConditionNode => {
    if (depth > maxNesting) throw new ConditionSyntaxError(`nested more than ${maxNesting} levels deep`);
    const token = peek();
    if (!token) throw new ConditionSyntaxError('ends where a value was expected');
    if (isSymbol(token, '!')) {
      position += 1;
      return { kind: 'not', operand: unary(depth + 1) };
    }
    if (isSymbol(token, '(')) {
      position += 1;
      const inner = or(depth + 1);
      if (!isSymbol(peek(), ')')) throw new ConditionSyntaxError(`expected ')' but found ${where()}`);
      position += 1;
      return inner;
    }
    position += 1;
    if (token.kind === 'literal') return { kind: 'literal', value: token.value };
    if (token.kind === 'operand') return { kind: 'operand', text: token.text };
    throw new ConditionSyntaxError(`unexpected '${token.text}' at ${token.at + 1}`);
  };
  const node = or(0);
  if (position < tokens.length) throw new ConditionSyntaxError(`unexpected ${where()}`);
  return node;
}

/**
 * How values compare. loose (Arazzo's simple criteria): strings case-insensitively, a numeric
 * string against a number as a number; strict (JSONPath filters, RFC 9535): same type, exact.
 */
export type ComparisonMode = 'loose' | 'strict';

function isNumeric(text: string): boolean {
  return text.trim() !== '' && Number.isFinite(Number(text));
}

function comparable(a: unknown, b: unknown, mode: ComparisonMode): [unknown, unknown] {
  if (mode === 'loose') {
    if (typeof a === 'string' && typeof b === 'string') return [a.toLowerCase(), b.toLowerCase()];
    if (typeof a === 'number' && typeof b === 'string' && isNumeric(b)) return [a, Number(b)];
    if (typeof b === 'number' && typeof a === 'string' && isNumeric(a)) return [Number(a), b];
  }
  return [a, b];
}

function equal(a: unknown, b: unknown, mode: ComparisonMode): boolean {
  const [left, right] = comparable(a ?? null, b ?? null, mode);
  if (left === null || right === null) return left === right;
  if (typeof left === 'object' || typeof right === 'object') return JSON.stringify(left) === JSON.stringify(right);
  return left === right;
}

function ordered(operator: '<' | '<=' | '>' | '>=', a: unknown, b: unknown, mode: ComparisonMode): boolean {
  const [left, right] = comparable(a, b, mode);
  const sameKind = (typeof left === 'number' && typeof right === 'number') || (typeof left === 'string' && typeof right === 'string');
  if (!sameKind) return false;
  const l = left as number | string;
  const r = right as number | string;
  return operator === '<' ? l < r : operator === '<=' ? l <= r : operator === '>' ? l > r : l >= r;
}

export function truthy(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== 0 && value !== '';
}

/** Evaluates a parsed condition; `operand` gives each operand's value (undefined when it has none). */
export function evaluateCondition(node: ConditionNode, operand: (text: string) => unknown, mode: ComparisonMode): boolean {
  const value = (inner: ConditionNode): unknown => {
    if (inner.kind === 'literal') return inner.value;
    if (inner.kind === 'operand') return operand(inner.text);
    return test(inner);
  };
  const test = (inner: ConditionNode): boolean => {
    switch (inner.kind) {
      case 'literal':
        return truthy(inner.value);
      case 'operand':
        // A JSONPath filter's lone query is an existence test (RFC 9535): a false or 0 there exists.
        return mode === 'strict' ? value(inner) !== undefined : truthy(value(inner));
      case 'not':
        return !test(inner.operand);
      case 'and':
        return test(inner.left) && test(inner.right);
      case 'or':
        return test(inner.left) || test(inner.right);
      case 'compare': {
        const left = value(inner.left);
        const right = value(inner.right);
        if (inner.operator === '==') return equal(left, right, mode);
        if (inner.operator === '!=') return !equal(left, right, mode);
        return ordered(inner.operator, left, right, mode);
      }
    }
  };
  return test(node);
}

/** The operands of a condition, in order, for saying what each was when it failed. */
export function operandsOf(node: ConditionNode): string[] {
  switch (node.kind) {
    case 'literal':
      return [];
    case 'operand':
      return [node.text];
    case 'not':
      return operandsOf(node.operand);
    default:
      return [...operandsOf(node.left), ...operandsOf(node.right)];
  }
}
