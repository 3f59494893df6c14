/**
 * @module engine/patterns
 * The regular expressions of scenario rules (`match.operationId`), matched in linear time.
 * A backtracking engine (JavaScript's RegExp) takes exponential time on patterns such as
 * `^(a+)+$`: one request then held the event loop for good. Patterns run on RE2's automaton
 * instead (re2js, a pure-JS port: isomorphic, no native code), compiled once per scenario.
 *
 * RE2's time is linear in the input but grows with the compiled program too, so a pattern is
 * checked before it is compiled — synchronously, the same way on every path into the engine
 * (control API, scenario file, `useScenario`, MSW options) — for the JavaScript features RE2
 * cannot run, for repeat counts, and for an estimate of its program's size; the compiled size
 * is checked again after. re2js is loaded on first use, not at start: importing it costs about
 * 20 ms, and most runs of the mock use no pattern at all (docs/performance.md, start-up).
 */

import { UnsupportedSchemaError } from '../contract/schema-to-zod.js';

/** Longest pattern accepted, in UTF-16 units. */
export const maxPatternLength = 256;
/** Largest `{n}` / `{n,m}` count: an operationId has at most 128 characters. */
export const maxRepeatCount = 128;
/**
 * Largest program, in RE2 instructions, of one pattern and of all the patterns of a scenario.
 * Matching costs about 2 ms per 1,000 instructions against a 128-character operationId, and a
 * compiled instruction about 170 bytes, so a scenario's patterns cost a create at most ~4 ms
 * and hold at most ~340 KB.
 */
export const maxPatternProgram = 1000;
export const maxScenarioProgram = 2000;

/** What one pattern may be: its length, its largest repeat count and its program's size. */
export interface PatternLimits {
  readonly maxLength: number;
  readonly maxRepeat: number;
  readonly maxProgram: number;
}

export const scenarioPatternLimits: PatternLimits = {
  maxLength: maxPatternLength,
  maxRepeat: maxRepeatCount,
  maxProgram: maxPatternProgram,
};

/**
 * A contract document's `pattern`s: longer values than an operationId (a field's maxLength may
 * be in the thousands), so larger repeats and programs. A request value is at most the body
 * limit long, and matching stays linear in it.
 */
export const documentPatternLimits: PatternLimits = { maxLength: 1024, maxRepeat: 1024, maxProgram: 4000 };

/** A compiled pattern: `test` finds a match anywhere in the text, as RegExp.prototype.test does. */
export interface CompiledPattern {
  test(text: string): boolean;
  /** RE2 instructions in the compiled program. */
  readonly programSize: number;
}

type Re2Module = typeof import('re2js');
let re2Module: Promise<Re2Module> | undefined;

/**
 * JavaScript's `\s` (with the `u` flag), spelt out: RE2's `\s` is ASCII only, and `.` in RE2
 * also matches `\r`, U+2028 and U+2029, which JavaScript's does not.
 */
const jsSpace = '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
const jsDot = '[^\\n\\r\\x{2028}\\x{2029}]';

/** A checked pattern: RE2's text for it, and the estimated size of its program. */
export interface CheckedPattern {
  readonly re2Source: string;
  readonly estimatedProgram: number;
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '9';
}

/**
 * Checks `source` without running it and gives RE2's spelling of it, or says what is wrong.
 * Accepted: JavaScript syntax (`u` flag) minus what RE2 cannot run in linear time —
 * lookaround and backreferences — and minus the spellings RE2 reads otherwise (`\p{…}` names
 * other than a general category such as `L` or `Lu`, `[\b]`). The program size is estimated
 * as RE2 builds it: each atom one instruction, a repeated atom copied once per count.
 */
export function checkPattern(source: string, limits: PatternLimits = scenarioPatternLimits): CheckedPattern | string {
  const { maxLength, maxRepeat, maxProgram } = limits;
  if (source.length > maxLength) return `is ${source.length} characters long; a pattern has at most ${maxLength}`;
  try {
    // Constructing a RegExp only parses it; it is never run.
    new RegExp(source, 'u');
  } catch {
    return 'must be a valid regular expression';
  }
  let out = '';
  let inClass = false;
  // One frame per open group: the size of its finished branches, of the branch being read,
  // and of the last atom read (what a quantifier repeats).
  const frames: { done: number; branch: number; last: number }[] = [{ done: 0, branch: 0, last: 0 }];
  const atom = (size: number) => {
    const frame = frames.at(-1)!;
    frame.branch += size;
    frame.last = size;
  };
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index]!;
    if (char === '\\') {
      const next = source[index + 1] ?? '';
      if (!inClass && (/[1-9]/.test(next) || (next === 'k' && source[index + 2] === '<'))) {
        return 'uses a backreference, which a linear-time matcher cannot run';
      }
      if (inClass && next === 'b') return 'uses [\\b], which RE2 reads otherwise; write \\x08';
      if (next === 'p' || next === 'P') {
        const close = source.indexOf('}', index);
        const name = source.slice(index + 3, close);
        if (!/^[A-Z][a-z]?$/.test(name)) {
          return `uses \\${next}{${name.slice(0, 40)}}; only general categories such as \\p{L} or \\p{Lu} are accepted`;
        }
        out += source.slice(index, close + 1);
        index = close;
        if (!inClass) atom(1);
        continue;
      }
      if (next === 's' || next === 'S') {
        out += inClass ? (next === 's' ? jsSpace : '\\S') : next === 's' ? `[${jsSpace}]` : `[^${jsSpace}]`;
      } else out += `\\${next}`;
      index += 1;
      if (!inClass) atom(1);
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      out += char;
      continue;
    }
    if (char === '[') {
      inClass = true;
      out += char;
      atom(1);
      continue;
    }
    if (char === '(') {
      if (/^\?(=|!|<=|<!)/.test(source.slice(index + 1, index + 4))) {
        return 'uses lookahead or lookbehind, which a linear-time matcher cannot run';
      }
      frames.push({ done: 0, branch: 0, last: 0 });
    } else if (char === ')') {
      const group = frames.pop()!;
      atom(group.done + group.branch + 1);
    } else if (char === '|') {
      const frame = frames.at(-1)!;
      frame.done += frame.branch + 1;
      frame.branch = 0;
      frame.last = 0;
    } else if (char === '*' || char === '+' || char === '?') {
      // A lazy marker after a quantifier adds nothing; a quantifier adds a split instruction.
      if (!(char === '?' && /[*+?}]/.test(source[index - 1] ?? ''))) frames.at(-1)!.branch += 2;
    } else if (char === '{' && isDigit(source[index + 1])) {
      const close = source.indexOf('}', index);
      const [low = '', high] = source.slice(index + 1, close).split(',');
      const count = Math.max(Number(low), high === undefined ? 0 : high === '' ? Number(low) + 1 : Number(high));
      if (count > maxRepeat) return `repeats {${source.slice(index + 1, close)}}; a count is at most ${maxRepeat}`;
      const frame = frames.at(-1)!;
      frame.branch += frame.last * (count - 1) + count;
      frame.last *= count;
      out += source.slice(index, close + 1);
      index = close;
      continue;
    } else if (char === '.') {
      out += jsDot;
      atom(1);
      continue;
    } else if (char !== '^' && char !== '$') atom(1);
    else frames.at(-1)!.branch += 1;
    out += char;
  }
  const root = frames[0]!;
  const estimatedProgram = root.done + root.branch + 2;
  if (estimatedProgram > maxProgram) {
    return `would compile to about ${estimatedProgram} instructions; a pattern has at most ${maxProgram} (fewer or smaller repeats)`;
  }
  return { re2Source: out, estimatedProgram };
}

/** What is wrong with `source` as a pattern, or undefined (see checkPattern). */
export function patternProblem(source: string): string | undefined {
  const checked = checkPattern(source);
  return typeof checked === 'string' ? checked : undefined;
}

/** Compiles a checked pattern; rejects with the reason when RE2 refuses it or its program is over the limit. */
export async function compilePattern(source: string, limits: PatternLimits = scenarioPatternLimits): Promise<CompiledPattern> {
  const checked = checkPattern(source, limits);
  if (typeof checked === 'string') throw new Error(checked);
  re2Module ??= import('re2js');
  const { RE2JS } = await re2Module;
  let expression: InstanceType<Re2Module['RE2JS']>;
  try {
    expression = RE2JS.compile(RE2JS.translateRegExp(checked.re2Source));
  } catch (error) {
    // RE2's message quotes the pattern, which is at most maxPatternLength long.
    throw new Error(String((error as Error).message).replace(/^error parsing regexp: /, ''));
  }
  const programSize = expression.programSize();
  if (programSize > limits.maxProgram) {
    throw new Error(`compiles to ${programSize} instructions; a pattern has at most ${limits.maxProgram}`);
  }
  return { test: (text: string) => expression.matcher(text).find(), programSize };
}

/**
 * The `pattern`s of a contract document, matched in linear time as scenario patterns are. The
 * document's schemas are converted synchronously (zod's refinements are synchronous) while
 * re2js loads asynchronously, so each pattern is checked at once, where a refusal can name its
 * place in the document, and compiled by `ready()`, which the engine awaits before it answers.
 */
export class PatternBook {
  private readonly compiled = new Map<string, CompiledPattern>();
  /** Each source, with the pointer of its first use (named if RE2 refuses it). */
  private readonly pending = new Map<string, string>();
  private compiling: Promise<void> | undefined;

  /**
   * A test of `source` for the schema converter. Throws an UnsupportedSchemaError naming `pointer` for a
   * pattern that cannot run in linear time; the test throws if called before `ready()` settled.
   */
  readonly tester = (source: string, pointer: string): ((text: string) => boolean) => {
    const checked = checkPattern(source, documentPatternLimits);
    if (typeof checked === 'string') throw new UnsupportedSchemaError(pointer, checked);
    if (!this.compiled.has(source) && !this.pending.has(source)) this.pending.set(source, pointer);
    this.compiling = undefined;
    return (text) => {
      const pattern = this.compiled.get(source);
      if (!pattern) throw new Error(`the pattern at ${pointer} is not compiled yet: await the contract's ready()`);
      return pattern.test(text);
    };
  };

  /** Compiles every pattern handed out; rejects with an UnsupportedSchemaError for one RE2 refuses. */
  ready(): Promise<void> {
    this.compiling ??= (async () => {
      for (const [source, pointer] of [...this.pending]) {
        try {
          this.compiled.set(source, await compilePattern(source, documentPatternLimits));
        } catch (error) {
          throw new UnsupportedSchemaError(pointer, (error as Error).message);
        }
        this.pending.delete(source);
      }
    })();
    return this.compiling;
  }
}
