/**
 * @module server/scenario-file
 * Resolves `--scenario NAME|FILE`: a shipped scenario's name, or a JSON or YAML file parsed
 * and validated with errors that name the file and the path inside it. The file is read by
 * `readRegularFile` (a regular file only, bounded) and its errors quote at most a few dozen of
 * its characters (`src/documents/document-text.ts`), docs/assumptions.md A-27.
 */
import { extname } from 'node:path';
import { DocumentSyntaxError, locatePath, parseDocumentText, withShortQuotes } from '../documents/document-text.js';
import { readRegularFile, UserFileError } from '../documents/regular-file.js';
import { checkScenario, parseScenario, type Scenario, ScenarioError } from '../engine/index.js';

/**
 * Where a schema problem is in the file: the value at its path, or for an unknown key the key
 * itself (zod names the object that holds it), or the nearest object that should hold it.
 */
async function problemPosition(options: {
  readonly text: string;
  readonly problem: { readonly path: string; readonly message: string };
}): Promise<{ line: number; column: number } | undefined> {
  const { problem } = options;
  const segments = problem.path === '(root)' ? [] : problem.path.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  const key = /^Unrecognized keys?: "([^"]+)"/.exec(problem.message)?.[1];
  // A missing key has no place of its own: the nearest object that holds it is where to add it.
  for (let length = segments.length; length >= 0; length -= 1) {
    const at = await locatePath({ text: options.text, path: segments.slice(0, length), ...(key === undefined ? {} : { key }) });
    if (at) return at;
  }
  return undefined;
}

/** True when `value` looks like a path rather than a scenario name. */
export function isScenarioPath(value: string): boolean {
  return /[/\\]/.test(value) || /\.(json|ya?ml)$/i.test(value);
}

/**
 * A scenario file that cannot be used as it is: missing, unreadable, not a regular file, or
 * not JSON/YAML. Still a ScenarioError (callers that catch those keep working); its message
 * says which file, what is wrong and what to do, with a short code frame when there is one.
 */
export class ScenarioFileError extends ScenarioError {
  constructor(options: { readonly path: string; readonly problem: string; readonly message: string }) {
    super(options.path, [{ path: '(file)', message: options.problem }]);
    this.message = options.message;
  }
}

const whatToPass = "pass a shipped scenario's name or the path of a .json, .yaml or .yml scenario file";

function indent(text: string): string {
  return text
    .replace(/^\n+|\n+$/g, '')
    .split('\n')
    .map((line) => (line === '' ? '' : `    ${line}`))
    .join('\n');
}

/** A scenario file read: the scenario, the text it came from and where the path led. */
export interface LoadedScenarioFile {
  readonly scenario: Scenario;
  readonly text: string;
  /** The file the path led to (symbolic links resolved); `--watch` requires later reads to lead there too. */
  readonly resolvedPath: string;
}

/**
 * Reads and validates the scenario file at `path`. With `resolvedPath` (a previous read's), the
 * path must still lead to that file. Throws ScenarioFileError for a file that cannot be read or
 * parsed, ScenarioError for one the schema refuses.
 */
export async function readScenarioFile(path: string, options: { readonly resolvedPath?: string } = {}): Promise<LoadedScenarioFile> {
  let read: { text: string; resolvedPath: string };
  try {
    read = await readRegularFile({ path, ...options });
  } catch (error) {
    if (!(error instanceof UserFileError)) throw error;
    throw new ScenarioFileError({ path, problem: error.message, message: `${error.message}; ${whatToPass}.` });
  }
  return { scenario: await scenarioFromText({ text: read.text, path }), ...read };
}

/** Reads and validates the scenario file at `path` (see readScenarioFile). */
export async function loadScenarioFile(path: string): Promise<Scenario> {
  return (await readScenarioFile(path)).scenario;
}

/**
 * The scenario in `text`, read from `path` (whose extension says JSON or YAML). Its errors hold
 * no run of the text longer than a few dozen characters.
 */
export async function scenarioFromText(options: { readonly text: string; readonly path: string }): Promise<Scenario> {
  const { text, path } = options;
  const yaml = ['.yaml', '.yml'].includes(extname(path).toLowerCase());
  let value: unknown;
  try {
    value = await parseDocumentText({ text, yaml });
  } catch (error) {
    if (!(error instanceof DocumentSyntaxError)) throw error;
    const problem = `${path} is not valid ${yaml ? 'YAML' : 'JSON'}: ${error.problem}`;
    throw new ScenarioFileError({
      path,
      problem,
      message: `${problem}${error.frame === undefined ? '. ' : `:\n\n${indent(error.frame)}\n\n`}Fix the file, or pass a shipped scenario's name instead.`,
    });
  }
  try {
    // Patterns are compiled now, so one the linear-time matcher refuses stops the start (exit 2).
    return await checkScenario({ scenario: parseScenario({ value, source: path }), source: path });
  } catch (error) {
    if (!(error instanceof ScenarioError)) throw error;
    // zod quotes unknown keys, and a pattern's error quotes the pattern: short quotes only.
    const problems = await Promise.all(
      error.problems.map(async (problem) => {
        const at = await problemPosition({ text, problem });
        const where = at ? ` (line ${at.line}, column ${at.column})` : '';
        return { path: `${withShortQuotes(problem.path, text)}${where}`, message: withShortQuotes(problem.message, text) };
      }),
    );
    throw new ScenarioError(path, problems);
  }
}
