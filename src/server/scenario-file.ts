/**
 * @module server/scenario-file
 * Resolves `--scenario NAME|FILE`: a shipped scenario's name, or a JSON or YAML file parsed
 * and validated with errors that name the file and the path inside it.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { checkScenario, parseScenario, type Scenario, ScenarioError } from '../engine/index.js';

/** True when `value` looks like a path rather than a scenario name. */
export function isScenarioPath(value: string): boolean {
  return /[/\\]/.test(value) || /\.(json|ya?ml)$/i.test(value);
}

export async function loadScenarioFile(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ScenarioError(path, [
      { path: '(file)', message: `cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` },
    ]);
  }
  let value: unknown;
  try {
    // yaml is loaded only for YAML files: it is dozens of modules, and loading them on every
    // start of `evidence-harness mock` delayed its first answer by about 20 ms.
    value = ['.yaml', '.yml'].includes(extname(path).toLowerCase()) ? (await import('yaml')).parse(text) : JSON.parse(text);
  } catch (error) {
    throw new ScenarioError(path, [
      {
        path: '(file)',
        message: `is not valid ${extname(path).slice(1).toUpperCase() || 'JSON'}: ${(error as Error).message.split('\n')[0]}`,
      },
    ]);
  }
  // Patterns are compiled now, so one the linear-time matcher refuses stops the start (exit 2).
  return checkScenario({ scenario: parseScenario({ value, source: path }), source: path });
}
