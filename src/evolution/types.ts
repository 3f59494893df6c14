/**
 * @module evolution/types
 * The values the diff engine speaks: a change between two OpenAPI documents, classified on two
 * axes (does it break clients written against OLD, does it break servers implementing OLD), and
 * the report that lists them. Isomorphic: plain data, no imports.
 */

/** Who a change breaks. Both false: a compatible change. */
export interface Breaks {
  /** A client written against OLD can get an answer it was not written for, or a request it makes is refused. */
  readonly clients: boolean;
  /** A server implementing OLD no longer conforms to NEW. */
  readonly servers: boolean;
}

/**
 * Which way a schema or value travels. Request values flow client → server, so tightening them
 * breaks clients and loosening them breaks servers; response values flow the other way.
 */
export type Direction = 'request' | 'response';

/** What a schema change does to the set of values a schema accepts. */
export type Effect = 'widens' | 'narrows' | 'both' | 'none';

/** The operation a change belongs to, as OLD names it (or NEW, for an added operation). */
export interface OperationRef {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
}

/**
 * The part of an operation a change touches, which consumer coverage is matched against:
 * the whole operation, one response status, a response header, or a field of a body.
 */
export type Subject =
  | { readonly kind: 'document' }
  | { readonly kind: 'operation' }
  | { readonly kind: 'request' }
  | { readonly kind: 'status'; readonly status: string }
  | { readonly kind: 'response-body'; readonly status: string; readonly field: string }
  | { readonly kind: 'response-header'; readonly status: string; readonly header: string };

/** Whether a consumer's tests were seen to use what a client-breaking change touches. */
export type ImpactLevel = 'exercised' | 'unexercised' | 'none';

export interface Impact {
  readonly level: ImpactLevel;
  /** The coverage behaviours (seen at least once) that make it `exercised`. */
  readonly evidence: readonly string[];
}

/** A JSON pointer into one of the two documents (as written, before any $ref is followed). */
export interface Location {
  readonly document: 'old' | 'new';
  readonly pointer: string;
}

export interface Change {
  /** The rule that found and classified it: a stable kebab-case identifier. */
  readonly rule: string;
  /** Where the change is: a pointer into NEW, or into OLD for what NEW no longer has. */
  readonly location: Location;
  /** Where the schema that changed is defined, when a $ref led there (e.g. #/components/schemas/Job/properties/status). */
  readonly definedAt?: string;
  readonly operation?: OperationRef;
  readonly subject: Subject;
  /** One sentence of fact and one of what to do. */
  readonly message: string;
  readonly breaks: Breaks;
  /** Set when a coverage document was given. */
  readonly impact?: Impact;
}

export interface DocumentInfo {
  readonly source: string;
  readonly title: string;
  readonly version: string;
}

export interface DiffReport {
  readonly old: DocumentInfo;
  readonly new: DocumentInfo;
  readonly changes: readonly Change[];
  /** True when more changes were found than a report keeps (the rest are left out). */
  readonly truncated: boolean;
  readonly counts: {
    readonly total: number;
    readonly breaksClients: number;
    readonly breaksServers: number;
    readonly compatible: number;
    readonly exercised?: number;
    readonly unexercised?: number;
  };
  /** Present when a coverage document was given: where from, and how much of it the tests saw. */
  readonly coverage?: { readonly source: string; readonly covered: number; readonly total: number };
}

/** Which breaking changes make `diff --fail-on` exit 1. */
export type FailOn = 'clients' | 'servers' | 'any';

/** True when `change` is one `failOn` asks to fail on. */
export function failsOn(change: Change, failOn: FailOn): boolean {
  if (failOn === 'clients') return change.breaks.clients;
  if (failOn === 'servers') return change.breaks.servers;
  return change.breaks.clients || change.breaks.servers;
}
