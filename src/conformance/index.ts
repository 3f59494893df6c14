/**
 * @module conformance
 * The conformance runner's public API: `runConformance(options)` checks a live server (or an
 * injected Fetch function) against the OpenAPI document and returns a report, which the
 * reporters render for terminals, CI (JUnit), tools (JSON) and people (HTML).
 */
export type { Check, CheckContext, ProbeName } from './checks/check.js';
export { checks, selectChecks, UnknownCheckError } from './checks/registry.js';
export type { Exchange, Intent } from './exchange.js';
export type { Failure, ReplayableRequest, Severity, Verdict } from './failures.js';
export { type ConformanceHooks, HookError, type HookRequest, loadHooks } from './hooks.js';
export { credentialVariable, redactHeaders, toCurl } from './http/curl.js';
export { HeaderLineError, headersFromLines, parseHeaderLine } from './http/header-line.js';
export type { FetchFunction } from './http/transport.js';
export { type OperationFilterOptions, UnknownOperationError } from './operation-filter.js';
export { type Pact, PactFileError, readPactFile } from './pact/pact-file.js';
export { isRunId } from './probes/probe-context.js';
export { type ReplayOutcome, type ReplayResult, replayFailures } from './replay.js';
export { CassetteRecorder } from './report/cassette.js';
export { renderHtml } from './report/html-report.js';
export { renderJson } from './report/json-report.js';
export { renderJunit } from './report/junit-report.js';
export {
  type CheckResult,
  type CheckStatus,
  type ConformanceReport,
  conformanceExitCodes,
  type RunVerdict,
  verdictLine,
} from './report/report.js';
export { renderSummary } from './report/summary-text.js';
export { parseReportTarget, type ReportFormat, ReportSpecError, type ReportTarget, writeReports } from './report/write-reports.js';
export { type ConformanceOptions, conformanceDefaults, formatDuration, runConformance, UnreachableTargetError } from './run.js';
export { type BaseUrlCredentials, credentialsFromBaseUrl, Scrubber, scrubberFor } from './secrets.js';
export {
  type ArazzoDocument,
  parseWorkflowDocument,
  type WorkflowDocument,
  WorkflowDocumentError,
  type WorkflowOptions,
} from './workflows/index.js';
