/**
 * @module conformance/pact/body-matching
 * Compares an expected JSON body with the one received, under the pact's rules, as Pact's
 * verifiers do for a response: every expected key must be there (extra keys are fine), arrays
 * keep their length unless a rule says otherwise, a rule on a node applies to the nodes below it
 * (the heaviest expression wins), and `values`, `eachKey`, `eachValue` and `arrayContains` change
 * how a container's items are compared. The received body is bounded by the transport (depth,
 * value count); the walk has a step budget too, since arrayContains tries each variant on each
 * item: past it the body is said to be too large to judge, never judged half-way.
 */
import { describeMatcher, jsonType, satisfies, shown, type ValueSource } from './matchers.js';
import { namesExactly, type PathStep, pathWeight, showPath } from './path-expression.js';
import type { Matcher, RuleCategory, RuleList } from './rules.js';

export interface Mismatch {
  /** status, a header's name, or the body path ($.items[0].id). */
  readonly path: string;
  readonly expected: string;
  readonly received: string;
}

/** Thrown when a comparison would take more than its step budget. */
export class TooComplexToMatch extends Error {
  override readonly name = 'TooComplexToMatch';
}

/** The most mismatches reported for one body: the first ones say what is wrong. */
export const maxMismatches = 20;
/** Steps (nodes compared, rule paths weighed) one body may take. */
export const matchStepBudget = 5_000_000;

interface Walk {
  readonly category: RuleCategory;
  readonly mismatches: Mismatch[];
  readonly contentType: string | null | undefined;
  readonly source: ValueSource;
  steps: number;
}

/** Matchers that describe a container's items: they hold at their own node and do not cascade. */
const ownNodeOnly = new Set<Matcher['kind']>(['values', 'eachKey', 'eachValue', 'arrayContains', 'notEmpty', 'statusCode', 'contentType']);

function spend(walk: Walk, steps: number): void {
  walk.steps += steps;
  if (walk.steps > matchStepBudget)
    throw new TooComplexToMatch(`comparing the body took more than ${matchStepBudget.toLocaleString('en-US')} steps`);
}

/** The rules that apply at `path`: the heaviest entry's, with the container-only ones dropped when it names an ancestor. */
function rulesAt(walk: Walk, path: readonly PathStep[]): RuleList | undefined {
  spend(walk, walk.category.entries.length + 1);
  let best: { weight: number; rules: RuleList; exact: boolean } | undefined;
  for (const entry of walk.category.entries) {
    const weight = pathWeight(entry.expression, path);
    if (weight > 0 && (!best || weight > best.weight)) best = { weight, rules: entry.rules, exact: namesExactly(entry.expression, path) };
  }
  if (!best) return undefined;
  if (best.exact) return best.rules;
  const matchers = best.rules.matchers
    .filter((matcher) => !ownNodeOnly.has(matcher.kind))
    // min and max bound the array they were written on, not the arrays inside it.
    .map((matcher): Matcher => (matcher.kind === 'type' ? { kind: 'type' } : matcher));
  return matchers.length > 0 ? { combine: best.rules.combine, matchers } : undefined;
}

function add(walk: Walk, mismatch: Mismatch): void {
  if (walk.mismatches.length < maxMismatches) walk.mismatches.push(mismatch);
}

/** Checks the rule list at this node; true when it holds. */
function holds(walk: Walk, rules: RuleList, expected: unknown, actual: unknown, path: readonly PathStep[]): boolean {
  const failing = rules.matchers.filter(
    (matcher) => !satisfies({ matcher, expected, actual, source: walk.source, contentType: walk.contentType }),
  );
  const ok = rules.combine === 'AND' ? failing.length === 0 : failing.length < rules.matchers.length;
  if (!ok) {
    const wanted = (rules.combine === 'AND' ? failing : rules.matchers).map((matcher) => describeMatcher(matcher, expected));
    add(walk, { path: showPath(path), expected: wanted.join(rules.combine === 'AND' ? ' and ' : ' or '), received: shown(actual) });
  }
  return ok;
}

function compare(walk: Walk, expected: unknown, actual: unknown, path: PathStep[], given?: RuleList): void {
  spend(walk, 1);
  if (walk.mismatches.length >= maxMismatches) return;
  const rules = given ?? rulesAt(walk, path);
  if (rules) {
    if (!holds(walk, rules, expected, actual, path)) return;
    // Equality judged the whole subtree.
    if (rules.combine === 'AND' && rules.matchers.some((matcher) => matcher.kind === 'equality')) return;
    descend(walk, { expected, actual, path, rules });
    return;
  }
  if (jsonType(expected) !== jsonType(actual)) {
    add(walk, {
      path: showPath(path),
      expected: `${jsonType(expected)} ${shown(expected)}`,
      received: `${jsonType(actual)} ${shown(actual)}`,
    });
    return;
  }
  if (expected === null || typeof expected !== 'object') {
    if (expected !== actual) add(walk, { path: showPath(path), expected: shown(expected), received: shown(actual) });
    return;
  }
  descend(walk, { expected, actual, path });
}

/**
 * Whether a rule names every child of `path` (`P[*]`, `P.*`): Pact's older wildcard form, which
 * compares a container's items with a template as `values` and a type rule with min do, rather
 * than key by key and index by index (pact-specification's "array with type matcher" cases).
 */
function wildcardChild(walk: Walk, path: readonly PathStep[], container: 'array' | 'object'): boolean {
  spend(walk, walk.category.entries.length);
  return walk.category.entries.some(({ expression }) => {
    const last = expression.tokens.at(-1);
    if (expression.tokens.length !== path.length + 1 || !last) return false;
    if (!(last.kind === 'any-field' || (container === 'array' && last.kind === 'any-index'))) return false;
    return pathWeight({ source: expression.source, tokens: expression.tokens.slice(0, -1) }, path) > 0;
  });
}

/** Compares a container's items (the node itself has been judged). */
function descend(walk: Walk, node: { expected: unknown; actual: unknown; path: PathStep[]; rules?: RuleList }): void {
  const { expected, actual, path, rules } = node;
  const own = (kind: Matcher['kind']) => rules?.matchers.find((matcher) => matcher.kind === kind);
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const contains = own('arrayContains');
    if (contains?.kind === 'arrayContains') {
      arrayContains(walk, { variants: contains.variants, expected, actual, path });
      return;
    }
    const eachValue = own('eachValue');
    if (!rules && !wildcardChild(walk, path, 'array')) {
      if (expected.length !== actual.length)
        add(walk, { path: showPath(path), expected: `an array of ${expected.length} item(s)`, received: `${actual.length} item(s)` });
      for (let index = 0; index < Math.min(expected.length, actual.length); index += 1)
        compare(walk, expected[index], actual[index], [...path, index]);
      return;
    }
    // Under a rule, each item is compared with the expected item at its index, else the first (the template).
    for (let index = 0; index < actual.length; index += 1) {
      const template = index < expected.length ? expected[index] : expected[0];
      if (template === undefined && eachValue?.kind !== 'eachValue') continue;
      compare(walk, template, actual[index], [...path, index], eachValue?.kind === 'eachValue' ? eachValue.rules : undefined);
    }
    return;
  }
  if (isObject(expected) && isObject(actual)) {
    const eachKey = own('eachKey');
    if (eachKey?.kind === 'eachKey')
      for (const key of Object.keys(actual)) compare(walk, Object.keys(expected)[0], key, [...path, key], eachKey.rules);
    const eachValue = own('eachValue');
    if (own('values') || eachValue || wildcardChild(walk, path, 'object')) {
      const first = Object.values(expected)[0];
      for (const [key, value] of Object.entries(actual)) {
        const template = Object.hasOwn(expected, key) ? expected[key] : first;
        compare(walk, template, value, [...path, key], eachValue?.kind === 'eachValue' ? eachValue.rules : undefined);
      }
      return;
    }
    if (eachKey) return;
    for (const [key, value] of Object.entries(expected)) {
      if (!Object.hasOwn(actual, key)) {
        add(walk, { path: showPath([...path, key]), expected: `present: ${shown(value)}`, received: '(absent)' });
        continue;
      }
      compare(walk, value, actual[key], [...path, key]);
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Each variant must match at least one item of the received array (its own rules, from the item as `$`). */
function arrayContains(
  walk: Walk,
  options: { variants: readonly { index: number; rules: RuleCategory }[]; expected: unknown[]; actual: unknown[]; path: PathStep[] },
): void {
  for (const [position, variant] of options.variants.entries()) {
    const template = options.expected[variant.index];
    const found = options.actual.some((item) => {
      const trial: Walk = { ...walk, category: variant.rules, mismatches: [], steps: walk.steps };
      compare(trial, template, item, []);
      walk.steps = trial.steps;
      return trial.mismatches.length === 0;
    });
    if (!found)
      add(walk, {
        path: showPath(options.path),
        expected: `an item matching variant ${position + 1}: ${shown(template)}`,
        received: `no such item among ${options.actual.length}`,
      });
  }
}

/** The mismatches of a received JSON body against the expected one, under `rules`. */
export function matchJsonBody(options: {
  expected: unknown;
  actual: unknown;
  rules: RuleCategory;
  contentType?: string | null;
  source?: ValueSource;
}): Mismatch[] {
  const walk: Walk = {
    category: options.rules,
    mismatches: [],
    contentType: options.contentType,
    source: options.source ?? 'json',
    steps: 0,
  };
  compare(walk, options.expected, options.actual, []);
  return walk.mismatches;
}

/** Whether one value satisfies a rule list (headers, status, text bodies), with the mismatch if not. */
export function matchValue(options: {
  rules: RuleList;
  expected: unknown;
  actual: unknown;
  label: string;
  source: ValueSource;
  contentType?: string | null;
}): Mismatch | undefined {
  const walk: Walk = { category: { entries: [] }, mismatches: [], contentType: options.contentType, source: options.source, steps: 0 };
  if (holds(walk, options.rules, options.expected, options.actual, [])) return undefined;
  const mismatch = walk.mismatches[0]!;
  return { ...mismatch, path: options.label };
}
