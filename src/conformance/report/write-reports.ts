/**
 * @module conformance/report/write-reports
 * Writes the report files asked for with --report FORMAT=FILE.
 */
import { writeOutputFile } from '../../files/output-file.js';
import { renderHtml } from './html-report.js';
import { renderJson } from './json-report.js';
import { renderJunit } from './junit-report.js';
import type { ConformanceReport } from './report.js';

export const reportFormats = { junit: renderJunit, json: renderJson, html: renderHtml } as const;
export type ReportFormat = keyof typeof reportFormats;

export interface ReportTarget {
  readonly format: ReportFormat;
  readonly file: string;
}

/** Thrown for a --report value that is not FORMAT=FILE with a known format. */
export class ReportSpecError extends Error {
  override readonly name = 'ReportSpecError';
}

/** 'junit=out/report.xml' → { format: 'junit', file: 'out/report.xml' }. */
export function parseReportTarget(text: string): ReportTarget {
  const equals = text.indexOf('=');
  const format = text.slice(0, equals);
  const file = text.slice(equals + 1);
  if (equals < 1 || !file || !(format in reportFormats)) {
    throw new ReportSpecError(`--report '${text}' is not FORMAT=FILE with FORMAT one of ${Object.keys(reportFormats).join(', ')}.`);
  }
  return { format: format as ReportFormat, file };
}

/** Writes each report; `scrub` is applied to the rendered text (credentials, as a last guard). */
export async function writeReports(
  report: ConformanceReport,
  targets: readonly ReportTarget[],
  options: { scrub?: (text: string) => string } = {},
): Promise<void> {
  for (const target of targets) {
    const text = reportFormats[target.format](report);
    await writeOutputFile({ path: target.file, data: options.scrub ? options.scrub(text) : text, label: `--report ${target.format}=` });
  }
}
