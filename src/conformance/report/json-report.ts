/**
 * @module conformance/report/json-report
 * The whole report as JSON, for tools that read results (credentials are never in it: request
 * headers given on the command line appear by name only, and reproductions are redacted). Each
 * check's failures are merged and ordered as every report lists them.
 */
import { type ConformanceReport, inReportedOrder } from './report.js';

export function renderJson(report: ConformanceReport): string {
  return `${JSON.stringify(inReportedOrder(report), null, 2)}\n`;
}
