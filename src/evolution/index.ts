/**
 * @module evolution
 * `evidence-harness/evolution`: what changed between two versions of an OpenAPI document, and
 * who each change breaks (clients written against OLD, servers implementing OLD), optionally
 * weighed against a consumer's coverage. Isomorphic: give it parsed, bundled documents (the CLI
 * reads and validates them with swagger-parser); docs/evolution.md describes every rule.
 */
export { type DiffInput, type DiffSource, diffDocuments } from './compare.js';
export { type CoverageInput, CoverageInputError, coverageInputLimits, parseCoverageInput } from './coverage-input.js';
export { withImpact } from './impact.js';
export { DiffLimitError, type DiffLimits, defaultDiffLimits } from './limits.js';
export { type DiffFormat, diffFormats, renderReport } from './render/index.js';
export type { Rule, Site } from './rule.js';
export { rules } from './rules/registry.js';
export type { Breaks, Change, DiffReport, Direction, FailOn, Impact, ImpactLevel, Location, OperationRef, Subject } from './types.js';
export { failsOn } from './types.js';
