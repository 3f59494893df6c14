/**
 * @module test/support/real-timers
 * Finds, in a test's source text, the waits on the wall clock that make a test race a busy
 * machine (issue 43, docs/development.md "Tests that wait on time"): a timer or sleep shorter than
 * the threshold, `vi.waitFor` left at its 1 s default, a `timeout` option shorter than the threshold,
 * and a short literal deadline handed to the code under test (`timeoutMs: 300`, `'--timeout', '2000'`).
 * Each is allowed only with a reason on the same line or the line above: `// real-time: <why>`
 * (real time is the point and the outcome cannot change with load) or `// fake-time: <why>`
 * (the wait runs on vitest's fake timers or a VirtualClock). A text scan, not a parser: it reads
 * the forms this project writes, and a finding names its line so a false one is cheap to mark.
 */

/** Below this many milliseconds, a wait on the wall clock needs a marked reason. */
export const realTimeThresholdMs = 10_000;

export interface RealTimerFinding {
  /** 1-based. */
  readonly line: number;
  readonly text: string;
  readonly why: string;
}

const marker = /\/\/\s*(real-time|fake-time):\s*\S/;

/** Options handed to the code under test that are a deadline or a delay in milliseconds. */
const deadlineOption =
  /\b(timeoutMs|deadlineMs|requestTimeoutMs|headersMs|requestMs|latencyMs|timeBudgetMs|jobTimeoutMs|windowMs|settleMs)\s*:\s*([\d_]+)\b/g;
/** The CLI's own: `'--timeout', '300'`, `'--latency', '50'`, `--timeout=300`. */
const deadlineFlag = /['"`]--(timeout|latency|job-timeout|time-budget)(?:['"`],\s*['"`]|=)(\d[\d_]*)(ms)?['"`]/g;
/** A poll's or a waiter's bound: `{ timeout: 5000 }`. */
const timeoutOption = /\btimeout\s*:\s*([\d_]+)\b/g;

/** A delay the scan can read: a number, or a bound of test/support/time-limits.ts that is never under 20 s. */
function literal(text: string): number | undefined {
  const written = text.trim();
  if (/^(inTime|testTimeout)\(|^schedulingAllowanceMs$|^defaultTestTimeoutMs$/.test(written)) return Number.POSITIVE_INFINITY;
  return /^\d[\d_]*$/.test(written) ? Number(written.replaceAll('_', '')) : undefined;
}

/** The arguments of the call whose `(` is at `open`, split at top-level commas (strings and brackets respected). */
function callArguments(source: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let current = '';
  for (let index = open + 1; index < source.length; index += 1) {
    const char = source[index]!;
    if (quote) {
      current += char;
      if (char === '\\') {
        current += source[index + 1] ?? '';
        index += 1;
      } else if (char === quote) quote = undefined;
      continue;
    }
    if (char === '"' || char === "'" || char === '`') quote = char;
    if ('([{'.includes(char)) depth += 1;
    if (')]}'.includes(char)) {
      if (depth === 0) {
        args.push(current);
        return args.map((arg) => arg.trim()).filter((arg) => arg !== '');
      }
      depth -= 1;
    }
    if (char === ',' && depth === 0) {
      args.push(current);
      current = '';
    } else current += char;
  }
  return args;
}

function lineOf(source: string, offset: number): number {
  let line = 1;
  for (let index = 0; index < offset; index += 1) if (source.charCodeAt(index) === 10) line += 1;
  return line;
}

/** Every unmarked wall-clock wait shorter than `thresholdMs` in `source`. */
export function realTimerFindings(source: string, thresholdMs = realTimeThresholdMs): RealTimerFinding[] {
  const lines = source.split('\n');
  const findings: RealTimerFinding[] = [];
  const marked = (line: number) => marker.test(lines[line - 1] ?? '') || marker.test(lines[line - 2] ?? '');
  const report = (offset: number, why: string) => {
    const line = lineOf(source, offset);
    if (!marked(line) && !findings.some((finding) => finding.line === line && finding.why === why))
      findings.push({ line, text: (lines[line - 1] ?? '').trim(), why });
  };
  const short = (ms: number | undefined) => ms === undefined || ms < thresholdMs;
  // Code only: a comment or a doc line that names setTimeout is not a wait.
  const code = source
    .split('\n')
    .map((line) => (/^\s*(\/\/|\*|\/\*)/.test(line) ? ' '.repeat(line.length) : line))
    .join('\n');

  // Timers: the delay is the last argument (setTimeout(fn, ms), setInterval(fn, ms)).
  for (const match of code.matchAll(/\b(setTimeout|setInterval)\s*\(/g)) {
    const args = callArguments(code, match.index + match[0].length - 1);
    const delay = args.length >= 2 ? literal(args[1]!) : 0;
    if (short(delay)) report(match.index, `${match[1]} with a delay under ${thresholdMs} ms`);
  }
  // node:timers/promises' setTimeout under any name: the delay is the first argument.
  for (const imported of code.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"](?:node:)?timers\/promises['"]/g)) {
    for (const name of imported[1]!.split(',')) {
      const alias = /setTimeout(?:\s+as\s+(\w+))?/.exec(name.trim());
      if (!alias) continue;
      const callee = alias[1] ?? 'setTimeout';
      for (const call of code.matchAll(new RegExp(`(?<![.\\w])${callee}\\s*\\(`, 'g'))) {
        if (alias[1] === undefined) continue; // the global setTimeout pass above has it
        const args = callArguments(code, call.index + call[0].length - 1);
        if (short(literal(args[0] ?? ''))) report(call.index, `${callee} (timers/promises) under ${thresholdMs} ms`);
      }
    }
  }
  // vi.waitFor gives up after 1 s unless told.
  for (const match of code.matchAll(/\bvi\.waitFor\s*\(/g)) {
    const args = callArguments(code, match.index + match[0].length - 1);
    if (!/\btimeout\s*:/.test(args[1] ?? '')) report(match.index, 'vi.waitFor at its 1 s default');
  }
  for (const match of code.matchAll(timeoutOption)) if (short(literal(match[1]!))) report(match.index, `a timeout under ${thresholdMs} ms`);
  for (const match of code.matchAll(deadlineOption))
    if (short(literal(match[2]!))) report(match.index, `${match[1]} under ${thresholdMs} ms handed to the code under test`);
  for (const match of code.matchAll(deadlineFlag)) {
    const ms = Number(match[2]!.replaceAll('_', '')) * (match[3] === 'ms' || match[1] === 'timeout' || match[1] === 'latency' ? 1 : 1000);
    if (short(ms)) report(match.index, `--${match[1]} under ${thresholdMs} ms handed to the code under test`);
  }
  return findings.sort((a, b) => a.line - b.line);
}
