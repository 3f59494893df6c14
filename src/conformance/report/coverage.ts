/**
 * @module conformance/report/coverage
 * What a run covered of the contract, so a reader sees what a PASS stands on. Every constraint
 * the document states on an operation's input (each keyword of the body schema at each place,
 * each header and path parameter), and the two rules on the body itself (well-formed JSON, the
 * application/json media type), is listed with how many answered requests exercised it
 * positively (a valid value there, or exactly on the limit) and negatively (a value breaking
 * it), and, where a side was not exercised, why. The documented statuses seen per operation
 * follow. The list comes from the spec, not from what the probes sent, so a constraint no probe
 * can reach shows up as not exercised instead of disappearing.
 */
import type { ContractDocument, JsonSchema, OperationDescription } from '../../openapi/document.js';
import type { ProbeName } from '../checks/check.js';
import type { Exchange, Intent } from '../exchange.js';
import type { ConstraintKind } from '../generators/mutations.js';
import { jsonBodySchema, parametersIn } from '../probes/request-builder.js';

/** One side (positive or negative) of a constraint. */
export interface Exercise {
  /** Requests sent for this side and answered (a whole answer, not rate limited). */
  readonly answered: number;
  /** Why this side was not exercised; absent when it was. */
  readonly why?: string;
}

export interface ConstraintCoverage {
  readonly operation: string;
  /** 'body' also holds the body's own rules (JSON syntax, media type). */
  readonly location: 'body' | 'header' | 'path';
  /** A JSON Pointer into the body (array items as /0), or the parameter's name. */
  readonly target: string;
  readonly constraint: ConstraintKind | 'json-syntax' | 'media-type';
  /** The constraint as the spec states it: "maxLength 128", "pattern ^[0-9a-f]{64}$". */
  readonly rule: string;
  readonly positive: Exercise;
  readonly negative: Exercise;
}

export interface StatusCoverage {
  readonly operation: string;
  /** A documented status ("202", "default"). */
  readonly status: string;
  /** Answers seen with it (under default: every status the operation does not list). */
  readonly seen: number;
}

export interface CoverageReport {
  /** Constraints exercised both ways, one way only, and not at all. */
  readonly totals: {
    readonly constraints: number;
    readonly both: number;
    readonly positiveOnly: number;
    readonly negativeOnly: number;
    readonly neither: number;
  };
  readonly constraints: readonly ConstraintCoverage[];
  readonly statuses: readonly StatusCoverage[];
}

type Side = 'positive' | 'negative';

interface Tally {
  answered: number;
  unanswered: number;
  firstProblem?: string;
  readonly notSent: Map<string, number>;
}

interface Entry {
  readonly operation: string;
  readonly location: ConstraintCoverage['location'];
  readonly target: string;
  readonly constraint: ConstraintCoverage['constraint'];
  readonly rule: string;
  readonly sides: Record<Side, Tally>;
}

const limitKinds = new Set<string>(['minLength', 'maxLength', 'minItems', 'maxItems']);

function tally(): Tally {
  return { answered: 0, unanswered: 0, notSent: new Map() };
}

function normalise(pointer: string): string {
  // Mutations and boundaries touch the first item; any item counts for coverage.
  return pointer.replace(/\/\d+(?=\/|$)/g, '/0');
}

/** The constraints a schema states, at each place of a value, with their pointers. */
function constraintsOf(schema: JsonSchema, at: string, add: (pointer: string, constraint: ConstraintKind, rule: string) => void): void {
  if (typeof schema.type === 'string') add(at, 'type', `type ${schema.type}`);
  if (Array.isArray(schema.enum)) add(at, 'enum', `enum of ${schema.enum.length}`);
  if (typeof schema.pattern === 'string') add(at, 'pattern', `pattern ${schema.pattern}`);
  if (typeof schema.format === 'string') add(at, 'format', `format ${schema.format}`);
  for (const keyword of ['minLength', 'maxLength', 'minItems', 'maxItems'] as const) {
    const limit = schema[keyword];
    // minLength 0 and minItems 0 state nothing.
    if (typeof limit === 'number' && (limit > 0 || keyword.startsWith('max'))) add(at, keyword, `${keyword} ${limit}`);
  }
  const child = (name: string | number) => `${at === '/' ? '' : at}/${String(name).replaceAll('~', '~0').replaceAll('/', '~1')}`;
  if (schema.type === 'object') {
    const properties = (schema.properties as Record<string, JsonSchema>) ?? {};
    for (const name of (schema.required as string[]) ?? []) add(child(name), 'required', 'required');
    if (schema.additionalProperties === false) add(at, 'additionalProperties', 'additionalProperties false');
    for (const [name, property] of Object.entries(properties)) constraintsOf(property, child(name), add);
  }
  if (schema.type === 'array' && schema.items && typeof schema.items === 'object') constraintsOf(schema.items as JsonSchema, child(0), add);
}

/** The pointers (items as /0) where a value is present, walking along the schema. */
function presentPointers(schema: JsonSchema, value: unknown, at: string, found: Set<string>): void {
  if (value === undefined) return;
  found.add(at);
  const child = (name: string | number) => `${at === '/' ? '' : at}/${String(name).replaceAll('~', '~0').replaceAll('/', '~1')}`;
  if (schema.type === 'object' && value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [name, property] of Object.entries((schema.properties as Record<string, JsonSchema>) ?? {}))
      if (Object.hasOwn(value, name)) presentPointers(property, (value as Record<string, unknown>)[name], child(name), found);
  }
  if (schema.type === 'array' && Array.isArray(value) && schema.items && typeof schema.items === 'object') {
    for (const item of value) presentPointers(schema.items as JsonSchema, item, child(0), found);
  }
}

/** The probes whose requests exercise each side: used to say "not sent" when none of them ran. */
function probeFor(entry: Pick<Entry, 'constraint' | 'location'>, side: Side): ProbeName {
  if (side === 'positive') return 'positive';
  if (entry.constraint === 'json-syntax') return 'malformed-json';
  if (entry.constraint === 'media-type') return 'media-type';
  if (entry.location === 'header' && entry.constraint === 'required') return 'missing-header';
  return 'negative';
}

function problemOf(exchange: Exchange): string | undefined {
  if (exchange.rateLimited) return 'still rate limited (429)';
  if (!exchange.response) return exchange.transportError ?? 'no answer';
  return exchange.response.incomplete?.message;
}

/**
 * Follows a run as its requests are sent or refused, keeping counts only (no bodies), and
 * builds the coverage report at the end.
 */
export class CoverageTracker {
  private readonly entries: Entry[] = [];
  private readonly index = new Map<string, Entry>();
  private readonly operations: readonly OperationDescription[];
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly options: {
      contract: ContractDocument;
      probeRuns: (probe: ProbeName) => boolean;
      /** Why a probe does not run, when it is not the check selection (a --pact run sends the pact only). */
      probesLeftOutBecause?: string | undefined;
    },
  ) {
    this.operations = options.contract.operations;
    for (const operation of this.operations) {
      const add = (location: Entry['location'], target: string, constraint: Entry['constraint'], rule: string) => {
        const entry: Entry = {
          operation: operation.operationId,
          location,
          target,
          constraint,
          rule,
          sides: { positive: tally(), negative: tally() },
        };
        this.entries.push(entry);
        this.index.set(this.key(operation.operationId, location, target, constraint), entry);
      };
      const body = jsonBodySchema(operation);
      if (body) {
        add('body', '/', 'json-syntax', 'well-formed JSON (A-21)');
        add('body', '/', 'media-type', 'Content-Type application/json (A-21)');
        constraintsOf(body, '/', (pointer, constraint, rule) => add('body', pointer, constraint, rule));
      }
      for (const location of ['header', 'path'] as const) {
        for (const parameter of parametersIn(operation, location)) {
          if (location === 'header' && parameter.required) add(location, parameter.name, 'required', 'required header');
          constraintsOf(parameter.schema, '/', (_pointer, constraint, rule) => add(location, parameter.name, constraint, rule));
        }
      }
    }
  }

  private key(operation: string, location: string, target: string, constraint: string): string {
    return `${operation}\n${location}\n${target}\n${constraint}`;
  }

  /** The entries one request exercises, and on which side. */
  private touched(
    operationId: string,
    intent: Intent,
    request: { headers?: Readonly<Record<string, string>>; body?: string },
  ): {
    side: Side;
    entries: Entry[];
  } {
    const operation = this.operations.find((candidate) => candidate.operationId === operationId);
    const find = (location: string, target: string, constraint: string) =>
      this.index.get(this.key(operationId, location, target, constraint));
    const entries = (found: (Entry | undefined)[]) => found.filter((entry): entry is Entry => entry !== undefined);
    switch (intent.kind) {
      case 'negative':
        return {
          side: 'negative',
          entries: entries([
            find(intent.location, intent.location === 'body' ? normalise(intent.pointer) : intent.pointer, intent.constraint),
          ]),
        };
      case 'missing-header':
        return { side: 'negative', entries: entries([find('header', intent.header, 'required')]) };
      case 'malformed-json':
        return { side: 'negative', entries: entries([find('body', '/', 'json-syntax')]) };
      case 'media-type':
        return { side: 'negative', entries: entries([find('body', '/', 'media-type')]) };
      case 'positive':
      case 'create':
      // A pact's state set-up sends the spec's own valid inputs (a pact's interactions may not be valid).
      case 'pact-state':
      case 'verification-example': {
        if (!operation) return { side: 'positive', entries: [] };
        const limits = intent.kind === 'positive' ? (intent.targets ?? []) : [];
        const onLimit = entries(
          limits.map((target) =>
            find(target.location, target.location === 'body' ? normalise(target.pointer) : target.pointer, target.constraint),
          ),
        );
        // Any valid value at a place exercises the constraints that are not limits there; a
        // limit is exercised positively only by a value exactly on it.
        const present = new Set<string>();
        const schema = jsonBodySchema(operation);
        if (schema && request.body !== undefined) {
          try {
            presentPointers(schema, JSON.parse(request.body), '/', present);
          } catch {
            // Not JSON: nothing present.
          }
        }
        const headers = new Set(Object.keys(request.headers ?? {}).map((name) => name.toLowerCase()));
        const atPlace = this.entries.filter((entry) => {
          if (entry.operation !== operationId || limitKinds.has(entry.constraint)) return false;
          if (entry.location === 'body')
            return entry.constraint === 'json-syntax' || entry.constraint === 'media-type' ? present.has('/') : present.has(entry.target);
          if (entry.location === 'header') return headers.has(entry.target.toLowerCase());
          return true;
        });
        return { side: 'positive', entries: [...new Set([...onLimit, ...atPlace])] };
      }
      default:
        return { side: 'positive', entries: [] };
    }
  }

  /** A request sent and recorded; `operationId` is the operation it was built for (even when its path left the template). */
  sent(exchange: Exchange, operationId: string | undefined): void {
    if (exchange.operationId && exchange.response && !exchange.response.incomplete) {
      const key = `${exchange.operationId}\n${exchange.response.status}`;
      this.seen.set(key, (this.seen.get(key) ?? 0) + 1);
    }
    if (!operationId) return;
    const { side, entries } = this.touched(operationId, exchange.intent, exchange.request);
    const problem = problemOf(exchange);
    for (const entry of entries) {
      const counts = entry.sides[side];
      if (problem === undefined) counts.answered += 1;
      else {
        counts.unanswered += 1;
        counts.firstProblem ??= problem;
      }
    }
  }

  /** A planned request not sent, and why. */
  refused(options: {
    operationId: string | undefined;
    intent: Intent;
    request: { headers?: Readonly<Record<string, string>>; body?: string };
    reason: string;
  }): void {
    if (!options.operationId) return;
    const { side, entries } = this.touched(options.operationId, options.intent, options.request);
    for (const entry of entries) entry.sides[side].notSent.set(options.reason, (entry.sides[side].notSent.get(options.reason) ?? 0) + 1);
  }

  private why(entry: Entry, side: Side): string | undefined {
    const counts = entry.sides[side];
    if (counts.answered > 0) return undefined;
    if (counts.notSent.size > 0) return [...counts.notSent].map(([reason, count]) => `${count} not sent: ${reason}`).join('; ');
    if (counts.unanswered > 0) return `${counts.unanswered} sent, none answered in full (${counts.firstProblem})`;
    if (!this.options.probeRuns(probeFor(entry, side)))
      return this.options.probesLeftOutBecause ?? 'not sent: no selected check needs these requests (--checks, --exclude-checks)';
    if (side === 'negative' && entry.constraint === 'type' && entry.location !== 'body')
      return `no mutation possible: a ${entry.location === 'header' ? 'header value' : 'path segment'} is always text`;
    if (side === 'positive' && limitKinds.has(entry.constraint)) return 'no value exactly on this limit could be built and sent';
    if (side === 'positive') return 'no valid request carried a value here (an optional property no example or generated input used)';
    return 'no mutation possible for this constraint (the runner cannot build one)';
  }

  report(): CoverageReport {
    const constraints = this.entries.map(
      (entry): ConstraintCoverage => ({
        operation: entry.operation,
        location: entry.location,
        target: entry.target,
        constraint: entry.constraint,
        rule: entry.rule,
        positive: exercise(entry.sides.positive.answered, this.why(entry, 'positive')),
        negative: exercise(entry.sides.negative.answered, this.why(entry, 'negative')),
      }),
    );
    const positive = (entry: ConstraintCoverage) => entry.positive.answered > 0;
    const negative = (entry: ConstraintCoverage) => entry.negative.answered > 0;
    const statuses: StatusCoverage[] = [];
    for (const operation of this.operations) {
      const listed = new Set(operation.responses.map((response) => response.status));
      for (const response of operation.responses) {
        let seen = 0;
        for (const [key, count] of this.seen) {
          const [id, status] = key.split('\n') as [string, string];
          if (id !== operation.operationId) continue;
          if (status === response.status || (response.status === 'default' && !listed.has(status))) seen += count;
        }
        statuses.push({ operation: operation.operationId, status: response.status, seen });
      }
    }
    return {
      totals: {
        constraints: constraints.length,
        both: constraints.filter((entry) => positive(entry) && negative(entry)).length,
        positiveOnly: constraints.filter((entry) => positive(entry) && !negative(entry)).length,
        negativeOnly: constraints.filter((entry) => !positive(entry) && negative(entry)).length,
        neither: constraints.filter((entry) => !positive(entry) && !negative(entry)).length,
      },
      constraints,
      statuses,
    };
  }
}

function exercise(answered: number, why: string | undefined): Exercise {
  return why === undefined ? { answered } : { answered, why };
}

/** A constraint as one line: "createEvaluation body /evidence/0/uri: format uri". */
export function constraintLabel(entry: ConstraintCoverage): string {
  return `${entry.operation} ${entry.location} ${entry.target}: ${entry.rule}`;
}

/** The summary line: how much of the contract's input constraints the run exercised. */
export function coverageLine(coverage: CoverageReport): string {
  const { totals } = coverage;
  const statusesSeen = coverage.statuses.filter((status) => status.seen > 0).length;
  const oneWay = totals.positiveOnly + totals.negativeOnly;
  return (
    `coverage: ${totals.both} of ${totals.constraints} input constraints exercised both ways (valid and broken)` +
    `${oneWay > 0 ? `, ${oneWay} one way only` : ''}${totals.neither > 0 ? `, ${totals.neither} not at all` : ''}` +
    ` · documented statuses seen: ${statusesSeen} of ${coverage.statuses.length}`
  );
}

/** The constraints not exercised both ways, each with why, then the documented statuses never seen. */
export function coverageGaps(coverage: CoverageReport): string[] {
  const constraints = coverage.constraints.flatMap((entry) =>
    (['positive', 'negative'] as const)
      .filter((side) => entry[side].why !== undefined)
      .map((side) => `${constraintLabel(entry)} — ${side === 'positive' ? 'valid' : 'broken'}: ${entry[side].why}`),
  );
  const statuses = coverage.statuses
    .filter((status) => status.seen === 0)
    .map((status) =>
      status.status === 'default'
        ? `${status.operation} default: no answer had a status the operation does not list (the run provokes none there)`
        : `${status.operation} ${status.status}: documented, never answered`,
    );
  return [...constraints, ...statuses];
}
