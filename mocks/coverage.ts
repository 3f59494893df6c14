/**
 * @module mocks/coverage
 * The test-runner side of consumer coverage: `expectCoverage` fails a suite (vitest, jest, or
 * anything that treats a throw as a failure) whose requests never made the mock show the
 * behaviours the suite says it must handle, with a readable list of what is missing.
 */
import { type BehaviourCoverage, type ConsumerReport, clientRules, isBehaviourId } from '../src/engine/index.js';

export interface CoverageExpectation {
  /** Behaviour ids (docs/coverage.md) the suite must have made the mock show: `createEvaluation 409`, `job FAILED`. */
  readonly mustSee: readonly string[];
  /**
   * Also fail when the client judge has findings: `true` for any, or the rules that must not
   * appear (docs/client-findings.md). Default: findings do not fail the suite.
   */
  readonly forbidFindings?: boolean | readonly string[];
}

/** Thrown by expectCoverage; `missing` lists the behaviours not seen. */
export class CoverageError extends Error {
  override readonly name = 'CoverageError';
  constructor(
    message: string,
    readonly missing: readonly BehaviourCoverage[],
    readonly report: ConsumerReport,
  ) {
    super(message);
  }
}

/** Anything with the engine's coverage(): `mock.control`, `engine.control`. */
export interface CoverageSource {
  coverage(): ConsumerReport;
}

/**
 * Throws a CoverageError unless every behaviour of `mustSee` has been shown (and, with
 * `forbidFindings`, no finding was raised). Returns the report when it passes. Coverage
 * survives `control.reset()`, so call it once, after the suite (afterAll).
 *
 * @example
 * afterAll(() => expectCoverage(mock.control, { mustSee: ['createEvaluation 409', 'job FAILED'] }));
 */
export function expectCoverage(source: CoverageSource, expectation: CoverageExpectation): ConsumerReport {
  const unknown = expectation.mustSee.filter((id) => !isBehaviourId(id));
  const report = source.coverage();
  if (unknown.length > 0) {
    const near = (id: string) => {
      const word = id.split(' ')[0] ?? '';
      const candidates = report.behaviours.filter((behaviour) => behaviour.id.startsWith(word)).map((behaviour) => behaviour.id);
      return candidates.length > 0 ? ` (known ids starting '${word}': ${candidates.slice(0, 12).join(', ')})` : '';
    };
    throw new TypeError(
      `expectCoverage: ${unknown.map((id) => `'${id}'${near(id)}`).join('; ')} ${unknown.length === 1 ? 'is not a behaviour id' : 'are not behaviour ids'}; see docs/coverage.md for the list.`,
    );
  }
  const forbiddenRules = Array.isArray(expectation.forbidFindings) ? expectation.forbidFindings : [];
  const unknownRules = forbiddenRules.filter((rule) => !clientRules.some((known) => known.name === rule));
  if (unknownRules.length > 0) {
    throw new TypeError(
      `expectCoverage: forbidFindings names ${unknownRules.map((rule) => `'${rule}'`).join(', ')}, which ${unknownRules.length === 1 ? 'is no rule' : 'are no rules'} of the client judge; known: ${clientRules.map((rule) => rule.name).join(', ')}.`,
    );
  }
  const wanted = new Set(expectation.mustSee);
  const listed = report.behaviours.filter((behaviour) => wanted.has(behaviour.id));
  const missing = listed.filter((behaviour) => !behaviour.covered);
  const forbidden = expectation.forbidFindings ?? false;
  const findings = report.clientFindings.filter(
    (finding) => forbidden === true || (Array.isArray(forbidden) && forbidden.includes(finding.rule)),
  );
  if (missing.length === 0 && findings.length === 0) return report;
  const width = Math.max(...listed.map((behaviour) => behaviour.id.length));
  const lines: string[] = [];
  if (missing.length > 0) {
    lines.push(
      `evidence-harness: the suite never saw ${missing.length} of the ${listed.length} behaviours it must see (- missing, + seen):`,
      ...listed.map((behaviour) =>
        behaviour.covered
          ? `  + ${behaviour.id.padEnd(width)}  seen ${behaviour.count} time${behaviour.count === 1 ? '' : 's'}`
          : `  - ${behaviour.id.padEnd(width)}  ${behaviour.description}`,
      ),
      `Missing: ${missing.map((behaviour) => behaviour.id).join(', ')}. Add tests that make the mock answer them (docs/coverage.md).`,
    );
  }
  if (findings.length > 0) {
    lines.push(
      `evidence-harness: the client judge found ${findings.length} problem${findings.length === 1 ? '' : 's'} (docs/client-findings.md):`,
      ...findings.map(
        (finding) =>
          `  ! ${finding.rule} (${finding.count}×): ${finding.message}\n      e.g. ${finding.example.method} ${finding.example.path} → ${finding.example.status}`,
      ),
    );
  }
  throw new CoverageError(lines.join('\n'), missing, report);
}
