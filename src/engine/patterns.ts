/**
 * @module engine/patterns
 * The regular expressions of scenario rules (`match.operationId`), matched in linear time.
 * A backtracking engine (JavaScript's RegExp) takes exponential time on patterns such as
 * `^(a+)+$`: one request then held the event loop for good. Patterns run on RE2's automaton
 * instead (re2js, a pure-JS port: isomorphic, no native code), compiled once per pattern.
 *
 * re2js is loaded on first use, not at start: importing it costs about 20 ms, and most runs of
 * the mock use no pattern at all (docs/performance.md, start-up).
 */

/** Longest pattern accepted, in UTF-16 units. */
export const maxPatternLength = 256;

/** A compiled pattern: `test` finds a match anywhere in the text, as RegExp.prototype.test does. */
export interface CompiledPattern {
  test(text: string): boolean;
}

type Re2Module = typeof import('re2js');
let re2Module: Promise<Re2Module> | undefined;

/** Compiled patterns by source, shared by every scenario that uses the same one. */
const compiled = new Map<string, Promise<CompiledPattern>>();
const maxCompiled = 1024;

/**
 * What is wrong with `source` as a pattern, found without running it: its length, its syntax
 * as a JavaScript regular expression (`u` flag), and the two JavaScript features RE2 cannot
 * run in linear time — lookaround and backreferences. Undefined when nothing is.
 */
export function patternProblem(source: string): string | undefined {
  if (source.length > maxPatternLength) return `is ${source.length} characters long; a pattern has at most ${maxPatternLength}`;
  try {
    // Constructing a RegExp only parses it; it is never run.
    new RegExp(source, 'u');
  } catch {
    return 'must be a valid regular expression';
  }
  let inClass = false;
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index];
    if (char === '\\') {
      const next = source[index + 1] ?? '';
      if (!inClass && (/[1-9]/.test(next) || (next === 'k' && source[index + 2] === '<'))) {
        return 'uses a backreference, which a linear-time matcher cannot run';
      }
      index += 1;
    } else if (char === '[') inClass = true;
    else if (char === ']') inClass = false;
    else if (!inClass && char === '(' && /^\?(=|!|<=|<!)/.test(source.slice(index + 1, index + 4))) {
      return 'uses lookahead or lookbehind, which a linear-time matcher cannot run';
    }
  }
  return undefined;
}

/** Compiles `source` (JavaScript syntax, translated to RE2's); rejects with the reason when RE2 refuses it. */
export function compilePattern(source: string): Promise<CompiledPattern> {
  const known = compiled.get(source);
  if (known) return known;
  if (compiled.size >= maxCompiled) compiled.clear();
  re2Module ??= import('re2js');
  const pattern = re2Module.then(({ RE2JS }) => {
    try {
      const expression = RE2JS.compile(RE2JS.translateRegExp(source));
      return { test: (text: string) => expression.matcher(text).find() };
    } catch (error) {
      // RE2's message quotes the pattern, which is at most maxPatternLength long.
      throw new Error(String((error as Error).message).replace(/^error parsing regexp: /, ''));
    }
  });
  // A refused pattern is not kept: the same text will be refused again, not served from here.
  pattern.catch(() => compiled.delete(source));
  compiled.set(source, pattern);
  return pattern;
}
