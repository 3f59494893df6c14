/**
 * `conformance` runs of the CLI in this process as the runner's option tests make them, in the
 * behaviour project and in the slow one alike: with both callers' credentials, and the JSON
 * report they wrote read back.
 */
import { readFileSync } from 'node:fs';
import type { ConformanceReport } from '../../src/conformance/report/report.js';
import { runMain } from './run-main.js';

/** Both callers, so that no check waits for a second caller's credentials. */
export const bothCallers: readonly string[] = [
  '--header',
  'Authorization: Bearer alice',
  '--second-caller-header',
  'Authorization: Bearer bob',
];

/** The CLI's `main` with `argv` and both callers' credentials after it. */
export function runWithBothCallers(...argv: string[]): ReturnType<typeof runMain> {
  return runMain(...argv, ...bothCallers);
}

/** The JSON report a run wrote (`--report json=FILE`). */
export function reportOf(file: string): ConformanceReport {
  return JSON.parse(readFileSync(file, 'utf8')) as ConformanceReport;
}
