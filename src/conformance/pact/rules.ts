/**
 * @module conformance/pact/rules
 * Pact's matching rules, read once when the pact is read: each rule list of a response (status,
 * headers, body paths) checked and compiled — regular expressions through the engine's
 * linear-time `compilePattern`, date patterns through `compileDateFormat` — so judging an answer
 * compiles nothing and a rule the runner cannot honour stops the run before any request, naming
 * the interaction and the rule. V4 and V3 write `{ combine, matchers: [...] }`; a bare matcher
 * object (V2's form) is read as a list of one.
 */
import { z } from 'zod';
import { type CompiledPattern, compilePattern } from '../../engine/patterns.js';
import { compileDateFormat, type DateFormat, defaultDateFormat } from './date-formats.js';
import { PactFileError } from './pact-file-error.js';
import { type PathExpression, parsePathExpression } from './path-expression.js';

/** The status classes of Pact's statusCode matcher. */
export const statusClasses = ['info', 'success', 'redirect', 'clientError', 'serverError', 'nonError', 'error'] as const;
export type StatusClass = (typeof statusClasses)[number];

export type Matcher =
  | { readonly kind: 'equality' }
  | { readonly kind: 'regex'; readonly source: string; readonly pattern: CompiledPattern }
  | { readonly kind: 'type'; readonly min?: number; readonly max?: number }
  | { readonly kind: 'include'; readonly value: string }
  | { readonly kind: 'integer' | 'decimal' | 'number' | 'boolean' | 'null' | 'notEmpty' | 'semver' | 'values' }
  | { readonly kind: 'date' | 'time' | 'timestamp'; readonly format: DateFormat }
  | { readonly kind: 'contentType'; readonly value: string }
  | { readonly kind: 'arrayContains'; readonly variants: readonly ArrayVariant[] }
  | { readonly kind: 'eachKey' | 'eachValue'; readonly rules: RuleList }
  | { readonly kind: 'statusCode'; readonly statuses: StatusClass | readonly number[] };

export type MatcherKind = Matcher['kind'];

export interface ArrayVariant {
  /** The expected array's item this variant describes. */
  readonly index: number;
  /** Rules for the item, with paths from `$` (the item itself). */
  readonly rules: RuleCategory;
}

export interface RuleList {
  readonly combine: 'AND' | 'OR';
  readonly matchers: readonly Matcher[];
}

/** The rules of one body (or a variant's item), keyed by path expression. */
export interface RuleCategory {
  readonly entries: readonly { readonly expression: PathExpression; readonly rules: RuleList }[];
}

export const emptyCategory: RuleCategory = { entries: [] };

/** Bounds on what one pact may ask of the matcher, whatever the file says. */
export const ruleLimits = {
  /** Rule lists in one category (a body's paths). */
  entriesPerCategory: 500,
  matchersPerList: 32,
  /** arrayContains inside arrayContains. */
  nesting: 4,
  /** Regular expressions in the whole pact (each compiled once). */
  patterns: 500,
  /**
   * RE2 instructions of all of them together: about 170 bytes each compiled (patterns.ts), so a
   * pact's regexes hold at most ~17 MB, whatever it repeats.
   */
  patternProgram: 100_000,
} as const;

const count = z.number().int().min(0).max(1_000_000);

/** Each matcher's own fields; the `match` name selects one. */
const matcherFields = {
  equality: z.object({}),
  regex: z.object({ regex: z.string() }),
  type: z.object({ min: count.optional(), max: count.optional() }),
  min: z.object({ min: count }),
  max: z.object({ max: count }),
  minType: z.object({ min: count }),
  maxType: z.object({ max: count }),
  include: z.object({ value: z.string().max(4096) }),
  integer: z.object({}),
  decimal: z.object({}),
  number: z.object({}),
  boolean: z.object({}),
  null: z.object({}),
  notEmpty: z.object({}),
  semver: z.object({}),
  values: z.object({}),
  date: z.object({ format: z.string().optional(), date: z.string().optional() }),
  time: z.object({ format: z.string().optional(), time: z.string().optional() }),
  timestamp: z.object({ format: z.string().optional(), timestamp: z.string().optional() }),
  datetime: z.object({ format: z.string().optional(), datetime: z.string().optional() }),
  contentType: z.object({ value: z.string().max(256) }),
  arrayContains: z.object({
    variants: z.array(z.object({ index: count, rules: z.record(z.string(), z.unknown()).optional() })).max(64),
  }),
  eachKey: z.object({ rules: z.array(z.unknown()).max(ruleLimits.matchersPerList) }),
  eachValue: z.object({ rules: z.array(z.unknown()).max(ruleLimits.matchersPerList) }),
  statusCode: z.object({ status: z.union([z.enum(statusClasses), z.array(z.number().int().min(100).max(599)).max(100)]) }),
} as const;

type MatcherName = keyof typeof matcherFields;

export const knownMatchers = Object.keys(matcherFields) as readonly MatcherName[];

/**
 * A pact's regex in the JavaScript syntax the pattern compiler reads. Pact's cores (Rust, Java)
 * let any ASCII punctuation be escaped (`^job\-\d+$`), which JavaScript's `u` mode refuses
 * outside the few characters it names; each such escape becomes the same character by its code
 * (`\x2D`), which both JavaScript and RE2 read as that literal.
 */
export function portableRegex(source: string): string {
  let out = '';
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index]!;
    const next = source[index + 1];
    if (char === '\\' && next !== undefined && /[!"#%&',\-:;<=>@_`~]/.test(next)) {
      out += `\\x${next.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
      index += 1;
    } else if (char === '\\' && next !== undefined) {
      out += char + next;
      index += 1;
    } else out += char;
  }
  return out;
}

/** Compiles regular expressions once per pact, and counts them. */
export class PatternCache {
  private readonly compiled = new Map<string, CompiledPattern>();
  private program = 0;

  async get(source: string, where: string): Promise<CompiledPattern> {
    const known = this.compiled.get(source);
    if (known) return known;
    if (this.compiled.size >= ruleLimits.patterns)
      throw new PactFileError(`${where}: the pact has more than ${ruleLimits.patterns} different regular expressions`);
    let pattern: CompiledPattern;
    try {
      pattern = await compilePattern(portableRegex(source));
    } catch (error) {
      throw new PactFileError(
        `${where}: the regex ${JSON.stringify(source.slice(0, 80))} ${(error as Error).message} (patterns run in linear time: no lookaround or backreferences)`,
      );
    }
    this.program += pattern.programSize;
    if (this.program > ruleLimits.patternProgram)
      throw new PactFileError(
        `${where}: the pact's regular expressions compile to more than ${ruleLimits.patternProgram} instructions together`,
      );
    this.compiled.set(source, pattern);
    return pattern;
  }
}

interface ReadContext {
  readonly patterns: PatternCache;
  readonly depth: number;
}

function problem(where: string, error: z.ZodError): PactFileError {
  const first = error.issues[0];
  const at = first && first.path.length > 0 ? ` at ${first.path.join('.')}` : '';
  return new PactFileError(`${where}${at}: ${first?.message ?? 'not a matcher'}`);
}

/** The name a matcher object gives itself; V2 wrote `{ regex }` or `{ min }` with no `match`. */
function matcherName(raw: Record<string, unknown>): string | undefined {
  if (typeof raw.match === 'string') return raw.match;
  if (typeof raw.regex === 'string') return 'regex';
  if (typeof raw.min === 'number' || typeof raw.max === 'number') return 'type';
  return undefined;
}

async function readMatcher(raw: unknown, where: string, context: ReadContext): Promise<Matcher> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new PactFileError(`${where}: a matcher must be an object`);
  const name = matcherName(raw as Record<string, unknown>);
  if (name === undefined) throw new PactFileError(`${where}: a matcher without "match"`);
  if (!Object.hasOwn(matcherFields, name))
    throw new PactFileError(
      `${where}: unknown matcher ${JSON.stringify(name.slice(0, 40))}; this runner knows ${knownMatchers.join(', ')}`,
    );
  const parsed = matcherFields[name as MatcherName].safeParse(raw);
  if (!parsed.success) throw problem(`${where}: matcher '${name}'`, parsed.error);
  const fields = parsed.data as Record<string, unknown>;
  switch (name as MatcherName) {
    case 'regex':
      return { kind: 'regex', source: fields.regex as string, pattern: await context.patterns.get(fields.regex as string, where) };
    case 'type':
    case 'min':
    case 'max':
    case 'minType':
    case 'maxType': {
      const min = fields.min as number | undefined;
      const max = fields.max as number | undefined;
      if (min !== undefined && max !== undefined && min > max) throw new PactFileError(`${where}: min ${min} is above max ${max}`);
      return { kind: 'type', ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
    }
    case 'include':
    case 'contentType':
      return { kind: name as 'include' | 'contentType', value: fields.value as string };
    case 'date':
    case 'time':
    case 'timestamp':
    case 'datetime': {
      const kind = name === 'datetime' ? 'timestamp' : (name as 'date' | 'time' | 'timestamp');
      const pattern = (fields.format ?? fields[name]) as string | undefined;
      if (pattern === undefined) return { kind, format: defaultDateFormat(kind) };
      const format = compileDateFormat(pattern);
      if (typeof format === 'string')
        throw new PactFileError(`${where}: the ${name} format ${JSON.stringify(pattern.slice(0, 80))} ${format}`);
      return { kind, format };
    }
    case 'arrayContains': {
      if (context.depth >= ruleLimits.nesting)
        throw new PactFileError(`${where}: arrayContains nested more than ${ruleLimits.nesting} deep`);
      const variants = fields.variants as { index: number; rules?: Record<string, unknown> }[];
      const read: ArrayVariant[] = [];
      for (const [position, variant] of variants.entries())
        read.push({
          index: variant.index,
          rules: await readCategory(variant.rules ?? {}, `${where} variant ${position}`, { ...context, depth: context.depth + 1 }),
        });
      return { kind: 'arrayContains', variants: read };
    }
    case 'eachKey':
    case 'eachValue': {
      if (context.depth >= ruleLimits.nesting) throw new PactFileError(`${where}: ${name} nested more than ${ruleLimits.nesting} deep`);
      const inner = { ...context, depth: context.depth + 1 };
      const matchers: Matcher[] = [];
      for (const [position, rule] of (fields.rules as unknown[]).entries())
        matchers.push(await readMatcher(rule, `${where} ${name} rule ${position}`, inner));
      return { kind: name as 'eachKey' | 'eachValue', rules: { combine: 'AND', matchers } };
    }
    case 'statusCode':
      return { kind: 'statusCode', statuses: fields.status as StatusClass | number[] };
    default:
      return { kind: name as 'equality' | 'integer' | 'decimal' | 'number' | 'boolean' | 'null' | 'notEmpty' | 'semver' | 'values' };
  }
}

/** Reads one rule list: `{ combine, matchers }`, or one bare matcher. */
export async function readRuleList(raw: unknown, where: string, context: ReadContext): Promise<RuleList> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new PactFileError(`${where}: a rule list must be an object`);
  const object = raw as Record<string, unknown>;
  if (!('matchers' in object)) return { combine: 'AND', matchers: [await readMatcher(object, where, context)] };
  const combine = object.combine ?? 'AND';
  if (combine !== 'AND' && combine !== 'OR') throw new PactFileError(`${where}: combine must be AND or OR`);
  if (!Array.isArray(object.matchers)) throw new PactFileError(`${where}: matchers must be a list`);
  if (object.matchers.length > ruleLimits.matchersPerList)
    throw new PactFileError(`${where}: more than ${ruleLimits.matchersPerList} matchers in one list`);
  const matchers: Matcher[] = [];
  for (const [position, matcher] of object.matchers.entries())
    matchers.push(await readMatcher(matcher, `${where} matcher ${position}`, context));
  return { combine, matchers };
}

/** Reads a category of rules keyed by path expression (a body's, or a variant's). */
export async function readCategory(raw: unknown, where: string, context: ReadContext): Promise<RuleCategory> {
  if (raw === undefined) return emptyCategory;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new PactFileError(`${where}: matching rules must be an object`);
  const keys = Object.keys(raw);
  if (keys.length > ruleLimits.entriesPerCategory)
    throw new PactFileError(`${where}: more than ${ruleLimits.entriesPerCategory} rule paths in one category`);
  const entries: RuleCategory['entries'][number][] = [];
  for (const key of keys) {
    const expression = parsePathExpression(key);
    if (typeof expression === 'string') throw new PactFileError(`${where}: the path ${JSON.stringify(key.slice(0, 80))} ${expression}`);
    entries.push({
      expression,
      rules: await readRuleList((raw as Record<string, unknown>)[key], `${where}['${key.slice(0, 80)}']`, context),
    });
  }
  return { entries };
}

export function readContext(patterns: PatternCache): ReadContext {
  return { patterns, depth: 0 };
}
