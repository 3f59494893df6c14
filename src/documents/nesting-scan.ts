/**
 * @module documents/nesting-scan
 * A look at a JSON or YAML text, in one pass and without parsing it, for the shapes that make
 * parsers fail badly before any check of the parsed value can run: the yaml package overflows its
 * stack at about 780 levels of `[`, aborts the whole process ("RegExpCompiler Allocation failed")
 * at a thousand `- ` on one line, and takes seconds on a few hundred nested `?` keys. Each bound
 * here is far above what a hand-written or generated document uses, and far below where a
 * parser breaks.
 */

/** The bounds of the scan (docs/assumptions.md A-30). */
export const nestingScanLimits = {
  /** Open `[` and `{` at once, outside quoted text and comments. */
  maxFlowDepth: 256,
  /** Block indicators (`- `, `? `, `: `) before a line's first value: `- - - x` nests three deep on one line. */
  maxIndicatorsPerLine: 32,
  /** Columns of indentation: a block collection nests at most one level per column. */
  maxIndentation: 1024,
  /** Explicit keys (`? key`), which the yaml package reads in time that grows faster than their nesting. */
  maxExplicitKeys: 64,
} as const;

/** What of the text passes a bound, with its line, or undefined. */
export function nestingProblem(text: string): string | undefined {
  const limits = nestingScanLimits;
  let depth = 0;
  let explicitKeys = 0;
  let line = 1;
  let lineStart = true;
  let indentation = 0;
  let indicators = 0;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const c = text[index]!;
    if (c === '\n') {
      line += 1;
      lineStart = true;
      indentation = 0;
      indicators = 0;
      // A quoted YAML scalar may run over lines, but the scan ends it here: it may then count a
      // bracket or a dash of such a scalar (a refusal only past the bounds), whereas carrying
      // a quote this scan misread (a plain scalar with an apostrophe) could hide a real nesting.
      quote = undefined;
      continue;
    }
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') index += 1;
      else if (c === quote) {
        if (quote === "'" && text[index + 1] === "'") index += 1;
        else quote = undefined;
      }
      continue;
    }
    if (lineStart) {
      if (c === ' ') {
        indentation += 1;
        if (indentation > limits.maxIndentation) return `line ${line} is indented more than ${limits.maxIndentation} columns`;
        continue;
      }
      const after = text[index + 1];
      if ((c === '-' || c === '?' || c === ':') && (after === ' ' || after === '\n' || after === undefined)) {
        indicators += 1;
        if (c === '?') explicitKeys += 1;
        if (indicators > limits.maxIndicatorsPerLine)
          return `line ${line} opens more than ${limits.maxIndicatorsPerLine} nested block collections`;
        if (explicitKeys > limits.maxExplicitKeys) return `it has more than ${limits.maxExplicitKeys} explicit keys ('? ')`;
        continue;
      }
      lineStart = false;
    }
    if (c === '#' && (index === 0 || /\s/.test(text[index - 1]!))) {
      const end = text.indexOf('\n', index);
      if (end === -1) break;
      index = end - 1;
      continue;
    }
    if (c === '"' || (c === "'" && (index === 0 || /[\s[{,:]/.test(text[index - 1]!)))) quote = c;
    else if (c === '[' || c === '{') {
      depth += 1;
      if (depth > limits.maxFlowDepth) return `line ${line} nests more than ${limits.maxFlowDepth} '[' or '{' deep`;
    } else if ((c === ']' || c === '}') && depth > 0) depth -= 1;
  }
  return undefined;
}
