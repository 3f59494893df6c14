/**
 * @module evolution/rule
 * The shape of a rule: one small named function that looks at one pair of nodes (OLD's and
 * NEW's) at one kind of site and says what changed there. Rules find and classify; the walker
 * (compare.ts) decides which pairs they see and recurses into the parts both documents share.
 */
import type { StepBudget } from './limits.js';
import type { IndexedOperation } from './operations.js';
import type { Breaks, Direction, Effect, OperationRef, Subject } from './types.js';

/** The kinds of node a rule can look at. */
export type Site = 'document' | 'operation' | 'parameter' | 'request-body' | 'media-type' | 'response' | 'header' | 'schema';

/** One side of a pair: the node (after its $refs are followed), and where it is. */
export interface Side {
  readonly value: Record<string, any>;
  /** Pointer to the node where it is used, in its own document. */
  readonly pointer: string;
  /** Pointer to where the node is defined, when a $ref led there. */
  readonly defined?: string;
}

export interface SiteContext {
  readonly site: Site;
  readonly old: Side;
  readonly new: Side;
  /** Which way values at this site travel; undefined at the document and operation sites. */
  readonly direction?: Direction;
  readonly operation?: OperationRef;
  readonly subject: Subject;
  /** Whom the site belongs to, for messages: "getJob (GET /v0/jobs/{jobId}) response 200". */
  readonly where: string;
  /** The field inside a body or parameter value, for messages: "evidence[].kind", or ''. */
  readonly field: string;
  readonly documents: { readonly old: Record<string, any>; readonly new: Record<string, any> };
  /** At the operation site: the two operations, with their path items. */
  readonly operations?: { readonly old: IndexedOperation; readonly new: IndexedOperation };
  readonly budget: StepBudget;
}

/** What a rule reports: a fact, and either an effect on accepted values or who it breaks. */
export interface Finding {
  /** What changed, as a sentence without the site (the walker prefixes where it is). */
  readonly fact: string;
  /** For a schema-like change: classified through the site's direction. */
  readonly effect?: Effect;
  /** For any other change: who it breaks, as the rule decided. */
  readonly breaks?: Breaks;
  /** Replaces the advice derived from who it breaks. */
  readonly advice?: string;
  /** Which document the location points into (default: NEW). */
  readonly at?: 'old' | 'new';
  /** Segments below the site's pointer (a property name, a status code). */
  readonly segments?: readonly (string | number)[];
  /** Replaces the site's subject (a response status a rule speaks of, say). */
  readonly subject?: Subject;
  /** Replaces the site's operation (for an operation added, moved or removed). */
  readonly operation?: OperationRef;
  /** Replaces the site's label. */
  readonly where?: string;
}

export interface Rule {
  /** Stable kebab-case identifier, shown in every report and used by tests. */
  readonly name: string;
  readonly sites: readonly Site[];
  /** One line for docs/evolution.md and --help. */
  readonly description: string;
  check(context: SiteContext): readonly Finding[];
}

/** A record, or undefined for anything else (the documents are untrusted input). */
export function record(value: unknown): Record<string, any> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, any>) : undefined;
}

/** `value` as a short quoted text for a message. */
export function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return `\`${text.length > 80 ? `${text.slice(0, 77)}...` : text}\``;
}
