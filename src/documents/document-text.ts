/**
 * @module documents/document-text
 * Parses the JSON or YAML text of a file the mock reads on the user's behalf (a scenario, a
 * config file), and keeps the file's own text out of messages (docs/assumptions.md A-27): an
 * error gives the line and column and shows at most `maxQuotedChars` characters of the file.
 * The path may have led somewhere the user did not mean (a secrets file), and the message ends
 * up in a terminal, a CI log or a bug report. Parsers quote freely (the yaml package prints
 * the lines around an error; V8 and zod quote tokens and keys), so every message built from a
 * file's text goes through `withShortQuotes` as well. Both show a file's characters that act on
 * a terminal or reorder what it shows (controls, bidi controls, line separators) as escapes
 * (`escapeControls`): a hostile file cannot retitle, recolour or rewrite the terminal of whoever
 * reads the error.
 */

import { documentLimits, shapeProblem } from '../contract/document-budget.js';
import { nestingProblem } from './nesting-scan.js';

/** The most characters of a file, in one run, that a message may hold. */
export const maxQuotedChars = 40;

/** A file that is not valid JSON or YAML: `problem` is one line with the line and column, `frame` the line cut around the column. */
export class DocumentSyntaxError extends Error {
  override readonly name: string = 'DocumentSyntaxError';
  readonly problem: string;
  readonly frame: string | undefined;
  constructor(options: { readonly problem: string; readonly frame?: string }) {
    super(options.frame === undefined ? options.problem : `${options.problem}:\n${options.frame}`);
    this.problem = options.problem;
    this.frame = options.frame;
  }
}

/**
 * A text or value over a budget of src/contract/document-budget.ts: nested too deep, too many
 * values, aliases that expand too far. A DocumentSyntaxError, so every reader that says "not
 * valid YAML" says this too, with the reason.
 */
export class DocumentBudgetError extends DocumentSyntaxError {
  override readonly name: string = 'DocumentBudgetError';
}

/**
 * The value of `text` as JSON or YAML, held to the document budgets (docs/assumptions.md A-30):
 * the text's nesting looked at before a parser sees it (nesting-scan.ts), YAML aliases bounded,
 * then the value's depth and size. Throws DocumentSyntaxError (or DocumentBudgetError), whose
 * problem and frame hold no run of the file longer than maxQuotedChars.
 */
export async function parseDocumentText(options: { readonly text: string; readonly yaml: boolean }): Promise<unknown> {
  const value = await parseUnchecked(options);
  const overBudget = shapeProblem(value);
  if (overBudget) throw new DocumentBudgetError({ problem: `${overBudget.problem} (at ${overBudget.pointer})` });
  return value;
}

async function parseUnchecked(options: { readonly text: string; readonly yaml: boolean }): Promise<unknown> {
  const { text } = options;
  const nesting = nestingProblem(text);
  if (nesting) throw new DocumentBudgetError({ problem: `${nesting}; it is not read (a parser would exhaust its stack)` });
  try {
    // yaml is loaded only for YAML files: it is dozens of modules, and loading them on every
    // start of `evidence-harness mock` delayed its first answer by about 20 ms. logLevel
    // 'error': its warnings would go to process.emitWarning, printed with the file's lines.
    return options.yaml
      ? (await import('yaml')).parse(text, { logLevel: 'error', maxAliasCount: documentLimits.maxYamlAliases })
      : JSON.parse(text);
  } catch (error) {
    if (error instanceof RangeError) throw new DocumentBudgetError({ problem: 'it nests too deeply to parse' });
    if (/excessive alias count/i.test(String((error as Error)?.message)))
      throw new DocumentBudgetError({
        problem: `its YAML aliases expand beyond what is read (${documentLimits.maxYamlAliases} alias uses, each weighed by what it expands to): an alias bomb`,
      });
    const message = String((error as Error)?.message ?? error);
    let head: string;
    let at: { line: number; column: number } | undefined;
    if (options.yaml) {
      // The yaml package's message is "what at line L, column C:" and its own code frame, which
      // quotes the lines in full: only its first words are kept, and the frame is made here.
      head = message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      const position = (error as { linePos?: readonly { line: number; col: number }[] }).linePos?.[0];
      if (position) at = { line: position.line, column: position.col };
    } else {
      // V8 gives a position, or (Node 20, some errors) an excerpt of the text in its place.
      const position = /at position (\d+)/.exec(message);
      head = message.replace(/ in JSON at position \d+.*$/s, '').replace(/\s*\n\s*/g, ' ');
      if (position) at = lineAndColumn(text, Number(position[1]));
    }
    const problem = withShortQuotes(`${head}${at ? ` at line ${at.line}, column ${at.column}` : ''}`, text);
    throw new DocumentSyntaxError({ problem, ...(at ? { frame: lineFrame(text, at) } : {}) });
  }
}

/**
 * Where the value at `path` (keys and indexes, as a schema names it) starts in the JSON or YAML
 * `text`, or undefined when it cannot be found. The file is parsed again, only on this error path.
 */
export async function locatePath(options: {
  readonly text: string;
  readonly path: readonly (string | number)[];
  /** A key of the object at `path`: where the key itself is written. */
  readonly key?: string;
}): Promise<{ line: number; column: number } | undefined> {
  // The yaml package reads JSON as YAML 1.2 and keeps each node's offsets.
  const { isMap, isScalar, parseDocument } = await import('yaml');
  const document = parseDocument(options.text, { logLevel: 'silent' });
  if (document.errors.length > 0) return undefined;
  let node: unknown = options.path.length === 0 ? document.contents : document.getIn(options.path, true);
  if (options.key !== undefined && isMap(node)) {
    const pair = node.items.find((item) => isScalar(item.key) && item.key.value === options.key);
    if (pair) node = pair.key;
  }
  const range = (node as { range?: readonly number[] } | undefined)?.range;
  return range === undefined ? undefined : lineAndColumn(options.text, range[0]!);
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

/**
 * C0 and C1 controls, DEL, the bidi controls (ALM, LRM, RLM, the embeddings, overrides and
 * isolates) and the line and paragraph separators: what a terminal acts on, or what shows a
 * text in another order than it is. A line feed is matched too; callers that keep it say so.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these characters are what it finds
const terminalActive = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * `text` with every character a terminal would act on written as an escape: `\x1b` for a byte
 * below U+0100, `\u202e` above. A line feed is kept when `keepLineFeeds` (a message's own lines).
 */
export function escapeControls(text: string, options: { readonly keepLineFeeds?: boolean } = {}): string {
  return text.replace(terminalActive, (character) => {
    if (character === '\n' && options.keepLineFeeds) return character;
    const code = character.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * The line at `at` with a caret under its column, as the yaml package shows it, but cut to
 * fewer than maxQuotedChars characters around the column ('…' marks a cut), its controls
 * escaped (`escapeControls`, the caret placed under the escaped text).
 */
export function lineFrame(text: string, at: { readonly line: number; readonly column: number }): string {
  const source = (text.split('\n')[at.line - 1] ?? '').replace(/\r$/, '');
  // One less than the bound: the line's end, shown after it, is in the file too.
  const width = maxQuotedChars - 1;
  const index = Math.max(0, at.column - 1);
  const start = Math.max(0, Math.min(index - Math.floor(width / 2), source.length - width));
  const end = Math.min(source.length, start + width);
  const before = `${start > 0 ? '…' : ''}${escapeControls(source.slice(start, Math.min(index, end)))}`;
  const shown = `${before}${escapeControls(source.slice(Math.min(index, end), end))}${end < source.length ? '…' : ''}`;
  return `${shown}\n${' '.repeat(before.length)}^`;
}

/**
 * `message` with every run of more than maxQuotedChars characters that also appears in `text`
 * cut to maxQuotedChars and '…', and its controls escaped (`escapeControls`; its own line feeds
 * kept). Whatever a parser or a schema quoted, no longer piece of the file is shown, and none raw. Runs are found from probes of half that length at fixed steps (a run longer
 * than the limit holds one), then widened by halving searches, so a few dozen searches of the
 * text suffice for a message of a few hundred characters.
 */
export function withShortQuotes(message: string, text: string): string {
  const probe = Math.floor(maxQuotedChars / 2);
  const inText = (start: number, end: number) => text.includes(message.slice(start, end));
  let kept = '';
  let from = 0;
  for (let start = 0; start + probe <= message.length; start += probe) {
    if (start < from || !inText(start, start + probe)) continue;
    // The longest run of the text that starts here, then the earliest start that still fits.
    let low = start + probe;
    let high = message.length;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (inText(start, middle)) low = middle;
      else high = middle - 1;
    }
    const end = low;
    let first = start;
    let earliest = from;
    while (earliest < first) {
      const middle = Math.floor((earliest + first) / 2);
      if (inText(middle, end)) first = middle;
      else earliest = middle + 1;
    }
    if (end - first <= maxQuotedChars) continue;
    kept += `${message.slice(from, first + maxQuotedChars)}…`;
    from = end;
  }
  return escapeControls(kept + message.slice(from), { keepLineFeeds: true });
}
