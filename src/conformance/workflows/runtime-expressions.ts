/**
 * @module conformance/workflows/runtime-expressions
 * Arazzo 1.0 runtime expressions, read and evaluated without eval: `$url`, `$method`,
 * `$statusCode`, `$request.{header.N|query.N|path.N|body[#/pointer]}`, the same for
 * `$response`, `$inputs.N`, `$outputs.N`, `$steps.S.outputs.N`, `$workflows.W.outputs.N`
 * (W's inputs too), `$sourceDescriptions.N.url` and `$components.inputs|parameters.N`. A name
 * may be followed by `.field` steps and a `#/json/pointer` into its value, as Redocly's respect
 * reads them. Strings embed expressions as `{$…}`; any other string is a literal.
 */

/** What an exchange gives the expressions of the step that sent it. */
export interface ExchangeView {
  readonly url: string;
  readonly method: string;
  readonly statusCode: number | undefined;
  readonly request: {
    readonly headers: Readonly<Record<string, string>>;
    readonly query: Readonly<Record<string, string>>;
    readonly path: Readonly<Record<string, string>>;
    readonly body: unknown;
  };
  readonly response:
    | {
        readonly headers: Readonly<Record<string, string>>;
        readonly body: unknown;
      }
    | undefined;
}

/** Everything an expression can name at one point of a run. */
export interface ExpressionScope {
  readonly inputs: Readonly<Record<string, unknown>>;
  /** The current workflow's steps that ran, by stepId. */
  readonly steps: Readonly<Record<string, { readonly outputs: Readonly<Record<string, unknown>> }>>;
  /** The workflows that ran, by workflowId. */
  readonly workflows: Readonly<
    Record<string, { readonly inputs: Readonly<Record<string, unknown>>; readonly outputs: Readonly<Record<string, unknown>> }>
  >;
  /** The current workflow's outputs (set once it ends). */
  readonly outputs: Readonly<Record<string, unknown>>;
  readonly sourceDescriptions: Readonly<Record<string, { readonly url: string }>>;
  readonly components: Readonly<Record<string, unknown>>;
  /** The step's exchange, once it is answered (or as sent, for $request while building). */
  readonly exchange?: ExchangeView | undefined;
}

export type Evaluated = { readonly found: true; readonly value: unknown } | { readonly found: false; readonly reason: string };

/** Thrown for an expression that is not one (a syntax error, not a missing value). */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
}

const missing = (reason: string): Evaluated => ({ found: false, reason });
const found = (value: unknown): Evaluated => ({ found: true, value });

/** Whether a string is a runtime expression as a whole (not a literal, not a template). */
export function isRuntimeExpression(text: string): boolean {
  return /^\$(url|method|statusCode|request\.|response\.|inputs\.|outputs\.|steps\.|workflows\.|sourceDescriptions\.|components\.)/.test(
    text,
  );
}

/** Follows an RFC 6901 JSON Pointer; a missing member is "not found", never an exception. */
export function followPointer(value: unknown, pointer: string): Evaluated {
  if (pointer === '') return found(value);
  if (!pointer.startsWith('/')) return missing(`'${pointer}' is not a JSON Pointer (it starts with /)`);
  let current = value;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < current.length) current = current[Number(token)];
    else if (current && typeof current === 'object' && !Array.isArray(current) && Object.hasOwn(current, token))
      current = (current as Record<string, unknown>)[token];
    else return missing(`nothing at ${pointer}`);
  }
  return found(current);
}

/** A header by name, as HTTP reads names: case-insensitively. */
function header(headers: Readonly<Record<string, string>>, wanted: string): Evaluated {
  const lower = wanted.toLowerCase();
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === lower) return found(value);
  return missing(`no ${wanted} header`);
}

/** `.a.b` steps then an optional `#/pointer`, applied to a value. */
function navigate(value: unknown, rest: string, label: string): Evaluated {
  const hash = rest.indexOf('#');
  const dotted = hash === -1 ? rest : rest.slice(0, hash);
  let current = value;
  for (const part of dotted.split('.').filter(Boolean)) {
    if (current && typeof current === 'object' && Object.hasOwn(current, part)) current = (current as Record<string, unknown>)[part];
    else return missing(`${label} has no '${part}'`);
  }
  return hash === -1 ? found(current) : followPointer(current, rest.slice(hash + 1));
}

/** Splits `name.rest` / `name#rest`: the first name, and what follows it (with its separator). */
function firstName(text: string): { name: string; rest: string } {
  const match = /^([^.#]+)(.*)$/s.exec(text);
  if (!match) throw new ExpressionError(`a name is missing after '${text}'`);
  return { name: match[1]!, rest: match[2]! };
}

function member(record: Readonly<Record<string, unknown>>, key: string, label: string): Evaluated {
  return Object.hasOwn(record, key) ? found(record[key]) : missing(`${label} '${key}' is not set`);
}

function messageSource(
  source: string,
  side: {
    headers: Readonly<Record<string, string>>;
    body: unknown;
    query?: Readonly<Record<string, string>>;
    path?: Readonly<Record<string, string>>;
  },
  label: string,
): Evaluated {
  if (source === 'body') return found(side.body);
  if (source.startsWith('body#')) return followPointer(side.body, source.slice(5));
  if (source.startsWith('header.')) return header(side.headers, source.slice(7));
  if (source.startsWith('query.') && side.query) return member(side.query, source.slice(6), `${label} query parameter`);
  if (source.startsWith('path.') && side.path) return member(side.path, source.slice(5), `${label} path parameter`);
  throw new ExpressionError(`'$${label}.${source}' names no part of the ${label} (header.N, query.N, path.N, body, body#/pointer)`);
}

/** Evaluates one runtime expression (the whole string). Throws ExpressionError for a malformed one. */
export function evaluateExpression(text: string, scope: ExpressionScope): Evaluated {
  const expression = text.trim();
  if (expression === '$url') return scope.exchange ? found(scope.exchange.url) : missing('no request was sent yet');
  if (expression === '$method') return scope.exchange ? found(scope.exchange.method) : missing('no request was sent yet');
  if (expression === '$statusCode')
    return scope.exchange?.statusCode === undefined ? missing('no answer came') : found(scope.exchange.statusCode);
  const dot = expression.indexOf('.');
  const head = dot === -1 ? expression : expression.slice(0, dot);
  const tail = dot === -1 ? '' : expression.slice(dot + 1);
  if (tail === '' && head !== '$inputs' && head !== '$outputs') throw new ExpressionError(`'${text}' is not a runtime expression`);
  switch (head) {
    case '$request':
      if (!scope.exchange) return missing('no request was sent yet');
      return messageSource(tail, scope.exchange.request, 'request');
    case '$response':
      if (!scope.exchange?.response) return missing('no answer came');
      return messageSource(tail, scope.exchange.response, 'response');
    case '$inputs':
      return tail === '' ? found(scope.inputs) : named(scope.inputs, tail, 'input');
    case '$outputs':
      return tail === '' ? found(scope.outputs) : named(scope.outputs, tail, 'workflow output');
    case '$steps': {
      const { name, rest } = firstName(tail);
      const step = scope.steps[name];
      if (!Object.hasOwn(scope.steps, name) || !step) return missing(`step '${name}' has not run`);
      if (!rest.startsWith('.outputs')) throw new ExpressionError(`'${text}': a step gives only its outputs ($steps.${name}.outputs.N)`);
      const outputs = rest.slice('.outputs'.length);
      return outputs === '' ? found(step.outputs) : named(step.outputs, outputs.replace(/^\./, ''), `output of step '${name}'`);
    }
    case '$workflows': {
      const { name, rest } = firstName(tail);
      const ran = scope.workflows[name];
      if (!Object.hasOwn(scope.workflows, name) || !ran) return missing(`workflow '${name}' has not run`);
      const part = /^\.(outputs|inputs)(.*)$/s.exec(rest);
      if (!part) throw new ExpressionError(`'${text}': a workflow gives its inputs and outputs ($workflows.${name}.outputs.N)`);
      const values = part[1] === 'outputs' ? ran.outputs : ran.inputs;
      return part[2] === '' ? found(values) : named(values, part[2]!.replace(/^\./, ''), `${part[1]!.slice(0, -1)} of workflow '${name}'`);
    }
    case '$sourceDescriptions': {
      const { name, rest } = firstName(tail);
      const description = scope.sourceDescriptions[name];
      if (!Object.hasOwn(scope.sourceDescriptions, name) || !description) return missing(`no source description '${name}'`);
      return rest === '.url' ? found(description.url) : rest === '' ? found(description) : missing(`'${text}' names no part of it`);
    }
    case '$components':
      return navigate(scope.components, tail, '$components');
    default:
      throw new ExpressionError(`'${text}' is not a runtime expression`);
  }
}

/** `name` then `.field` steps and a `#/pointer`, in one record of values. */
function named(record: Readonly<Record<string, unknown>>, text: string, label: string): Evaluated {
  const { name, rest } = firstName(text);
  const value = member(record, name, label);
  return value.found ? navigate(value.value, rest, `${label} '${name}'`) : value;
}

/** `{$…}` inside a string: each replaced by its value as text. */
const embedded = /\{(\$[^{}]+)\}/g;

/** Sets an own property, even one named `__proto__` (an assignment would set the prototype instead). */
export function setOwn(record: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * Bytes a request may be built from (docs/assumptions.md A-38). An expression is a reference: a
 * 0.4 MB file that names a 400 kB input 400 times would build a 160 MB body. Every value
 * resolved for one request is paid for here, as the JSON text it becomes, before it is built.
 */
export class ByteBudget {
  private remaining: number;
  constructor(readonly maxBytes: number) {
    this.remaining = maxBytes;
  }

  /** Pays `bytes`; false (and nothing paid) once the budget is spent. */
  pay(bytes: number): boolean {
    if (bytes > this.remaining) {
      this.remaining = -1;
      return false;
    }
    this.remaining -= bytes;
    return true;
  }

  /** Pays for `value` as JSON text, walking it no further than the budget: false past it. */
  payFor(value: unknown): boolean {
    const stack: unknown[] = [value];
    while (stack.length > 0) {
      const next = stack.pop();
      let bytes = 4;
      if (typeof next === 'string') bytes = next.length + 2;
      else if (Array.isArray(next)) {
        bytes = 2 + next.length;
        for (const item of next) stack.push(item);
      } else if (next && typeof next === 'object')
        for (const [key, item] of Object.entries(next)) {
          bytes += key.length + 4;
          stack.push(item);
        }
      else bytes = String(next).length;
      if (!this.pay(bytes)) return false;
    }
    return true;
  }
}

/** The most bytes one step's request is built from, by default: the contract's largest request body (16 MiB). */
export const defaultMaxRequestBytes = 16 * 1024 * 1024;

function overBudgetReason(budget: ByteBudget): string {
  return `the request it builds from inputs and expressions is larger than ${budget.maxBytes} bytes; it is not sent`;
}

function overBudget(budget: ByteBudget): Evaluated {
  return missing(overBudgetReason(budget));
}

/**
 * A value of a workflow (a parameter's value, a payload, a replacement): a whole-string runtime
 * expression gives its value, a string with `{$…}` gives the text with each filled in, objects
 * and arrays are resolved member by member, anything else is itself.
 */
export function resolveValue(
  value: unknown,
  scope: ExpressionScope,
  context: { readonly depth?: number; readonly budget?: ByteBudget } = {},
): Evaluated {
  const { depth = 0, budget = new ByteBudget(defaultMaxRequestBytes) } = context;
  if (depth > 64) return missing('the value is nested more than 64 levels deep');
  if (typeof value === 'string') {
    if (isRuntimeExpression(value)) {
      const result = evaluateExpression(value, scope);
      return result.found && !budget.payFor(result.value) ? overBudget(budget) : result;
    }
    if (!value.includes('{$')) return budget.pay(value.length + 2) ? found(value) : overBudget(budget);
    let problem: string | undefined;
    const text = value.replace(embedded, (_, inner: string) => {
      if (problem !== undefined) return '';
      const result = evaluateExpression(inner, scope);
      if (!result.found) {
        problem = `${inner}: ${result.reason}`;
        return '';
      }
      // Paid before the text is made: a JSON.stringify of a large value is what the budget prevents.
      if (!budget.payFor(result.value)) {
        problem = overBudgetReason(budget);
        return '';
      }
      return typeof result.value === 'string' ? result.value : JSON.stringify(result.value);
    });
    if (problem === undefined && !budget.pay(value.length)) problem = overBudgetReason(budget);
    return problem ? missing(problem) : found(text);
  }
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) {
      const result = resolveValue(item, scope, { depth: depth + 1, budget });
      if (!result.found) return result;
      items.push(result.value);
    }
    return found(items);
  }
  if (value && typeof value === 'object') {
    const members: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (!budget.pay(key.length + 4)) return overBudget(budget);
      const result = resolveValue(item, scope, { depth: depth + 1, budget });
      if (!result.found) return result;
      setOwn(members, key, result.value);
    }
    return found(members);
  }
  return budget.pay(String(value).length) ? found(value) : overBudget(budget);
}

/**
 * What is wrong with a whole-string runtime expression (an output's), checked without values:
 * not an expression at all, or a source it cannot name. Undefined when it reads.
 */
export function expressionProblem(text: string): string | undefined {
  if (!isRuntimeExpression(text))
    return `'${text.slice(0, 80)}' is not a runtime expression (they start with $url, $response., $steps., …)`;
  const empty: ExpressionScope = {
    inputs: {},
    steps: {},
    workflows: {},
    outputs: {},
    sourceDescriptions: {},
    components: {},
    exchange: {
      url: '',
      method: '',
      statusCode: 0,
      request: { headers: {}, query: {}, path: {}, body: {} },
      response: { headers: {}, body: {} },
    },
  };
  try {
    evaluateExpression(text, empty);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
