/**
 * @module server/scenario-file
 * Resolves `--scenario NAME|FILE`: a shipped scenario's name, or a JSON or YAML file parsed
 * and validated with errors that name the file and the path inside it.
 */
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { checkScenario, parseScenario, type Scenario, ScenarioError } from '../engine/index.js';

/** True when `value` looks like a path rather than a scenario name. */
export function isScenarioPath(value: string): boolean {
  return /[/\\]/.test(value) || /\.(json|ya?ml)$/i.test(value);
}

/**
 * A scenario file that cannot be used as it is: missing, unreadable, or not JSON/YAML. Still a
 * ScenarioError (callers that catch those keep working); its message says which file, what is
 * wrong and what to do, with the parser's code frame when there is one.
 */
export class ScenarioFileError extends ScenarioError {
  constructor(options: { readonly path: string; readonly problem: string; readonly message: string }) {
    super(options.path, [{ path: '(file)', message: options.problem }]);
    this.message = options.message;
  }
}

const whatToPass = "pass a shipped scenario's name or the path of a .json, .yaml or .yml scenario file";

/** What went wrong reading `path`, in words, with the absolute path it was resolved to. */
function readProblem(path: string, error: NodeJS.ErrnoException): string {
  const where = `${path} (resolved to ${resolve(path)})`;
  switch (error.code) {
    case 'ENOENT':
      return `file not found: ${where}`;
    case 'EISDIR':
      return `${where} is a folder, not a file`;
    case 'EACCES':
    case 'EPERM':
      return `${where} cannot be read: permission denied (${error.code})`;
    default:
      return `${where} cannot be read: ${error.code ?? error.message}`;
  }
}

/** The line of `text` holding `offset`, with a caret under that column, as YAML's errors show it. */
function codeFrame(text: string, offset: number): { line: number; column: number; frame: string } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  const source = text.split('\n')[line - 1] ?? '';
  return { line, column, frame: `${source}\n${' '.repeat(column - 1)}^` };
}

function indent(text: string): string {
  return text
    .replace(/^\n+|\n+$/g, '')
    .split('\n')
    .map((line) => (line === '' ? '' : `    ${line}`))
    .join('\n');
}

export async function loadScenarioFile(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const problem = readProblem(path, error as NodeJS.ErrnoException);
    throw new ScenarioFileError({ path, problem, message: `${problem}; ${whatToPass}.` });
  }
  const yaml = ['.yaml', '.yml'].includes(extname(path).toLowerCase());
  let value: unknown;
  try {
    // yaml is loaded only for YAML files: it is dozens of modules, and loading them on every
    // start of `evidence-harness mock` delayed its first answer by about 20 ms.
    value = yaml ? (await import('yaml')).parse(text) : JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    let problem: string;
    let frame = '';
    if (yaml) {
      // The yaml package's message ends with "at line L, column C:" and its own code frame.
      const [first, ...rest] = message.split('\n');
      problem = `${path} is not valid YAML: ${first}`;
      frame = rest.join('\n');
    } else {
      const position = /at position (\d+)/.exec(message);
      if (position) {
        const at = codeFrame(text, Number(position[1]));
        problem = `${path} is not valid JSON: ${message.replace(/ in JSON at position \d+.*$/s, '')} at line ${at.line}, column ${at.column}:`;
        frame = at.frame;
      } else {
        // Node 20 words some errors with an excerpt of the text instead of a position; one line reads better.
        problem = `${path} is not valid JSON: ${message.replace(/\s*\n\s*/g, ' ')}`;
      }
    }
    throw new ScenarioFileError({
      path,
      problem,
      message: `${problem}${frame.trim() === '' ? '. ' : `\n\n${indent(frame)}\n\n`}Fix the file, or pass a shipped scenario's name instead.`,
    });
  }
  // Patterns are compiled now, so one the linear-time matcher refuses stops the start (exit 2).
  return checkScenario({ scenario: parseScenario({ value, source: path }), source: path });
}
