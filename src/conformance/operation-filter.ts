/**
 * @module conformance/operation-filter
 * Which of the spec's operations a run may send requests to: `--include-operation`,
 * `--exclude-operation` (operationIds, as Schemathesis's `--include-operation-id`), and
 * `--include-path` / `--include-method`. What a filter leaves out is the user's choice, like a
 * check left out with --exclude-checks: its requests are not sent, and the checks that would
 * have judged only them are reported as left out, not as incomplete.
 */
import type { ContractDocument, OperationDescription } from '../openapi/document.js';

export interface OperationFilterOptions {
  /** operationIds to keep (empty: all). */
  readonly includeOperations?: readonly string[];
  /** operationIds to leave out. */
  readonly excludeOperations?: readonly string[];
  /** Path templates to keep, exactly as the spec writes them (`/v0/jobs/{jobId}`). */
  readonly includePaths?: readonly string[];
  /** HTTP methods to keep, any letter case. */
  readonly includeMethods?: readonly string[];
}

/** A filter names an operation, path or method the spec does not have; the CLI exits 2. */
export class UnknownOperationError extends Error {
  override readonly name = 'UnknownOperationError';
}

export class OperationFilter {
  private readonly options: OperationFilterOptions;

  constructor(options: { contract: ContractDocument; filter: OperationFilterOptions }) {
    this.options = options.filter;
    const operations = options.contract.operations;
    const ids = new Set(operations.map((operation) => operation.operationId));
    const paths = new Set(operations.map((operation) => operation.path));
    const methods = new Set(operations.map((operation) => operation.method.toLowerCase()));
    // A typo would otherwise filter out everything (or nothing) in silence.
    const unknown = (flag: string, names: readonly string[] | undefined, known: Set<string>, normalise = (name: string) => name) => {
      for (const name of names ?? [])
        if (!known.has(normalise(name)))
          throw new UnknownOperationError(`${flag}: the spec has no '${name}'; it has: ${[...known].join(', ')}`);
    };
    unknown('--include-operation', options.filter.includeOperations, ids);
    unknown('--exclude-operation', options.filter.excludeOperations, ids);
    unknown('--include-path', options.filter.includePaths, paths);
    unknown('--include-method', options.filter.includeMethods, methods, (name) => name.toLowerCase());
    if (this.active && !operations.some((operation) => this.includes(operation)))
      throw new UnknownOperationError('the operation filters leave no operation of the spec to send requests to');
  }

  /** Whether any filter was given. */
  get active(): boolean {
    const { includeOperations, excludeOperations, includePaths, includeMethods } = this.options;
    return [includeOperations, excludeOperations, includePaths, includeMethods].some((names) => (names?.length ?? 0) > 0);
  }

  /** Whether an include filter was given: requests outside the contract then belong to none of what it keeps. */
  private get includesOnly(): boolean {
    const { includeOperations, includePaths, includeMethods } = this.options;
    return [includeOperations, includePaths, includeMethods].some((names) => (names?.length ?? 0) > 0);
  }

  includes(operation: Pick<OperationDescription, 'operationId' | 'path' | 'method'>): boolean {
    const { includeOperations = [], excludeOperations = [], includePaths = [], includeMethods = [] } = this.options;
    if (includeOperations.length > 0 && !includeOperations.includes(operation.operationId)) return false;
    if (excludeOperations.includes(operation.operationId)) return false;
    if (includePaths.length > 0 && !includePaths.includes(operation.path)) return false;
    if (includeMethods.length > 0 && !includeMethods.some((method) => method.toLowerCase() === operation.method.toLowerCase()))
      return false;
    return true;
  }

  /**
   * Why a request is left out, or undefined when it goes. A request outside the contract (an
   * undeclared path or method) is no operation: an --include-* filter leaves it out, since the
   * user asked for some operations only; an --exclude-operation alone does not.
   */
  leftOutBecause(operation: Pick<OperationDescription, 'operationId' | 'path' | 'method'> | undefined): string | undefined {
    if (!this.active) return undefined;
    if (!operation) return this.includesOnly ? `outside the contract, left out by ${this.flags()}` : undefined;
    return this.includes(operation) ? undefined : `${operation.operationId} is left out by ${this.flags()}`;
  }

  /** The filters given, as the command line writes them. */
  flags(): string {
    const { includeOperations = [], excludeOperations = [], includePaths = [], includeMethods = [] } = this.options;
    const given: [string, readonly string[]][] = [
      ['--include-operation', includeOperations],
      ['--exclude-operation', excludeOperations],
      ['--include-path', includePaths],
      ['--include-method', includeMethods],
    ];
    return given
      .filter(([, names]) => names.length > 0)
      .map(([flag, names]) => `${flag} ${names.join(',')}`)
      .join(' ');
  }
}
