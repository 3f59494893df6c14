/**
 * @module conformance/exchange
 * One request the runner sent and what came back, with the intent that says why it was sent.
 * Probes produce exchanges; checks judge them. The intent is what lets a check know what the
 * answer should have been (a mutation expects 400, a replay expects the same jobId, …).
 */
import type { ConstraintKind } from './generators/mutations.js';
import type { SequenceRule, StepExpectation } from './stateful/model.js';

/** A request as sent (headers already include the caller's credentials). */
export interface SentRequest {
  readonly method: string;
  /** The absolute URL. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** Why an answer's body is not whole: the runner stopped reading it, or the server did. */
export interface IncompleteBody {
  /**
   * too-large: over --max-response-bytes (decoded or as sent); timeout: still arriving at the
   * request's deadline; closed: the server closed the connection mid-body; undecodable: its
   * Content-Encoding could not be decoded; too-complex: whole, but nested too deeply or holding
   * too many values to be parsed within the runner's memory bound (never parsed);
   * switched-protocols: a 101, after which the connection no longer speaks HTTP.
   */
  readonly reason: 'too-large' | 'timeout' | 'closed' | 'undecodable' | 'too-complex' | 'switched-protocols';
  /** Body bytes received (decoded) before reading stopped. */
  readonly bytes: number;
  /** In plain words, e.g. "answer larger than 4194304 bytes (--max-response-bytes)". */
  readonly message: string;
}

export interface ReceivedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly contentType: string | null;
  /** The body as text (at most --max-response-bytes of it). */
  readonly bodyText: string;
  /** The parsed body, or undefined when the body is not JSON (or not whole). */
  readonly json: unknown;
  /** Set when the body is not whole; checks then judge only that the answer was incomplete. */
  readonly incomplete?: IncompleteBody;
}

/** The documented rejection a negative input must get. */
export interface ExpectedRejection {
  /** An exact status, or 'any-4xx' when the operation documents no 400 (docs/assumptions.md A-23); printed as "a 4xx". */
  readonly status: number | 'any-4xx';
  /** Why this status: the rule of the spec or the assumption. */
  readonly because: string;
}

/** One constraint of an operation's input: where it is and which keyword states it. */
export interface ConstraintTarget {
  readonly location: 'body' | 'header' | 'path';
  /** A JSON Pointer into the body, or the parameter's name. */
  readonly pointer: string;
  readonly constraint: ConstraintKind;
}

/** A status a job was seen in, in the order the runner saw them. */
export interface JobObservation {
  readonly status: string;
  readonly evaluation?: string;
}

export type Intent =
  /** The reachability probe sent before anything else. */
  | { readonly kind: 'preflight' }
  /**
   * A schema-valid input: a spec example, a boundary value or a generated value. `targets` name
   * the limits a boundary value sits exactly on (one request can sit on several), for coverage.
   */
  | {
      readonly kind: 'positive';
      /**
       * observed: a request a client sent through `evidence-harness proxy`, valid against the spec;
       * largest-body and odd-strings: the inputs at the edges of validity of issue 23 (edge-probes.ts).
       */
      readonly source: 'example' | 'boundary' | 'generated' | 'observed' | 'largest-body' | 'odd-strings';
      readonly description: string;
      readonly targets?: readonly ConstraintTarget[];
    }
  /**
   * A valid createEvaluation that a stateful probe builds on (also a positive input). With
   * `distinctFrom`, it is sent under a new Idempotency-Key after a job already created under
   * another key, so its jobId must differ from that one.
   */
  | { readonly kind: 'create'; readonly purpose: string; readonly distinctFrom?: string }
  /** An input breaking exactly one constraint. */
  | {
      readonly kind: 'negative';
      readonly location: 'body' | 'header' | 'path';
      readonly pointer: string;
      readonly constraint: ConstraintKind;
      readonly overMaximum: boolean;
      readonly description: string;
      readonly expected: ExpectedRejection;
    }
  | { readonly kind: 'missing-header'; readonly header: string; readonly expected: ExpectedRejection }
  /** A body that is not JSON; `description` says how (absent: truncated in the middle). */
  | { readonly kind: 'malformed-json'; readonly expected: ExpectedRejection; readonly description?: string }
  /** A valid JSON body sent under another media type, or none (A-21). */
  | { readonly kind: 'media-type'; readonly contentType?: string; readonly description: string; readonly expected: ExpectedRejection }
  /** The first read of a job just created. */
  | { readonly kind: 'read-created'; readonly jobId: string }
  /** A poll of a job; `history` is what earlier reads of the same job showed. */
  | {
      readonly kind: 'poll';
      readonly jobId: string;
      readonly history: readonly JobObservation[];
      /**
       * Set on the last poll of a job: whether it reached a final state in time, and, when the
       * polling stopped for want of an answer, that answer's transport error.
       */
      readonly end?: {
        readonly reachedFinal: boolean;
        readonly elapsedMs: number;
        readonly timeoutMs: number;
        readonly stoppedBy?: string;
        /** Polls of the job sent, and how many of them were still answered 429 (each then waited as its Retry-After asked). */
        readonly polls: number;
        readonly rateLimitedPolls: number;
      };
    }
  | { readonly kind: 'replay'; readonly jobId: string }
  | { readonly kind: 'reserialized-replay'; readonly jobId: string }
  | { readonly kind: 'conflict'; readonly jobId: string }
  /**
   * A create of a stateful sequence (src/conformance/stateful): what the reference model
   * predicted and the rule it is held to. On the step where a (shrunk) sequence fails,
   * `earlier` holds the steps before it, so the failure prints the whole sequence.
   */
  | (StepExpectation & {
      readonly kind: 'sequence-step';
      readonly rule: SequenceRule;
      readonly sequence: string;
      /** 1-based, in the sequence as run. */
      readonly step: number;
      readonly description: string;
      readonly earlier?: readonly SequenceLine[];
      /** How the sequence was shrunk, or why shrinking stopped early. */
      readonly shrinking?: string;
      /** A burst of different bodies: every request of it, in the order sent (reproduced together). */
      readonly together?: readonly SequenceRequest[];
    })
  /** A poll of a stateful sequence's job, until it is final (judged by the generic checks only). */
  | { readonly kind: 'sequence-poll'; readonly sequence: string; readonly step: number; readonly jobId: string }
  | { readonly kind: 'second-caller'; readonly jobId: string }
  /**
   * A request a client sent through `evidence-harness proxy` that breaks the contract (the
   * client's fault, reported on the request side); only the generic checks judge its answer.
   */
  | { readonly kind: 'observed-invalid'; readonly description: string }
  /**
   * A read of a jobId no job has. `description` says what odd characters it holds, when it is
   * one of the path-characters probe's (issue 23); `dotSegment` marks a whole '.' or '..' segment,
   * which URL resolution removes, so the request may name a path outside the contract.
   */
  | { readonly kind: 'unknown-job'; readonly description?: string; readonly dotSegment?: boolean }
  | { readonly kind: 'verification-example'; readonly description: string }
  /**
   * An interaction of a pact (--pact): its description, its 0-based position in the file (by
   * which the pact check finds its expected response), and the provider states it was given.
   */
  | { readonly kind: 'pact'; readonly interaction: string; readonly index: number; readonly states: readonly string[] }
  /** A request that sets up a pact interaction's provider state through the API (a job to create, a job to poll). */
  | { readonly kind: 'pact-state'; readonly state: string; readonly interaction: string; readonly step: string }
  | { readonly kind: 'oversized-body'; readonly bytes: number; readonly expected: ExpectedRejection }
  | { readonly kind: 'undeclared-method'; readonly method: string; readonly path: string }
  | { readonly kind: 'undeclared-path'; readonly path: string }
  /**
   * A step of an Arazzo workflow (--workflows): `failure` is set on the attempt that failed the
   * workflow (a success criterion unmet with no action to recover, an output not found, a goto
   * loop); `earlier` holds the workflow's steps before it, so the failure prints the sequence.
   */
  | {
      readonly kind: 'workflow-step';
      readonly workflow: string;
      readonly step: string;
      /** 1-based: the step's attempts, retries counted. */
      readonly attempt: number;
      readonly failure?: { readonly title: string; readonly expected: string; readonly received: string };
      readonly earlier?: readonly SequenceLine[];
    }
  /**
   * A request sent again without the first caller's credentials (--header), right after it was
   * answered with them: `answer` is that answer's status and the SHA-256 of its body.
   */
  | {
      readonly kind: 'without-credentials';
      readonly description: string;
      readonly removed: readonly string[];
      readonly answer: { readonly status: number; readonly bodyDigest: string };
    }
  /**
   * A request of --write-profile's learning phase (src/conformance/profile/learning): it asks
   * the server one question a profile entry needs answered (`question`), with what makes this
   * request that question's (`detail`: the two problems it carries, the read's offset in ms…).
   */
  | {
      readonly kind: 'learning';
      readonly question: string;
      readonly detail?: Readonly<Record<string, string | number | boolean>>;
    };

export type IntentKind = Intent['kind'];

/** One step of a sequence as a failure prints it: the request sent, once or repeated. */
/** One request of a sequence, as a reproduction needs it. */
export interface SequenceRequest {
  readonly id: number;
  readonly caller: 1 | 2;
  readonly request: SentRequest;
}

export interface SequenceLine extends SequenceRequest {
  /** at-once: `times` identical requests sent together; until-final: a poll repeated `times` times. */
  readonly repeat?: { readonly how: 'at-once' | 'until-final'; readonly times: number };
  /** Requests with different bodies sent together (this one among them, in the order sent). */
  readonly together?: readonly SequenceRequest[];
  /** The next step waited this long after this one (--replay-wait, ms). */
  readonly thenWaitMs?: number;
}

export interface Exchange {
  /** Sequence number in the run, from 1. */
  readonly id: number;
  /** The operation of the spec the request targets (undefined outside the contract). */
  readonly operationId?: string;
  /** Which caller sent it: 1 (--header) or 2 (--second-caller-header). */
  readonly caller: 1 | 2;
  readonly intent: Intent;
  readonly request: SentRequest;
  /** Undefined when no answer came (timeout, refused connection, refused redirect). */
  readonly response?: ReceivedResponse;
  /** Why no usable answer came, e.g. "no answer within 10000 ms". */
  readonly transportError?: string;
  /** Notes from the transport, e.g. a 429 retried or a redirect not followed. */
  readonly notes: readonly string[];
  /** True when the answer is still 429 after waiting Retry-After and retrying once (A-11). */
  readonly rateLimited: boolean;
  readonly durationMs: number;
}

/** How many characters of a server-provided value a title, message or history quotes. */
export const quotedLength = 80;

/**
 * A value the server sent, cut for quoting in a title, message or history: a jobId or status
 * of megabytes is shown by its start and its length, never in full. Every server-provided
 * value quoted by the runner goes through it.
 */
export function quoted(value: unknown, max: number = quotedLength): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/** A job's status (and evaluation) as seen, each cut by `quoted`. */
export function showObservation(observation: JobObservation): string {
  return observation.evaluation ? `${quoted(observation.status)}/${quoted(observation.evaluation)}` : quoted(observation.status);
}

/**
 * A job's history as a person reads it: repeated states counted, not listed.
 * [QUEUED, RUNNING ×20] and a final "no answer" → "QUEUED → RUNNING × 20, then no answer".
 */
export function condensedHistory(observations: readonly JobObservation[], then?: string): string {
  const runs: { shown: string; count: number }[] = [];
  for (const observation of observations) {
    const shown = showObservation(observation);
    const last = runs.at(-1);
    if (last?.shown === shown) last.count += 1;
    else runs.push({ shown, count: 1 });
  }
  const history = runs.map((run) => (run.count > 1 ? `${run.shown} × ${run.count}` : run.shown)).join(' → ');
  if (!then) return history || 'no status seen';
  return history ? `${history}, then ${then}` : then;
}

/** Why the exchange has no usable answer: no answer at all, or one whose body is not whole. */
export function unusableBecause(exchange: Exchange): string | undefined {
  if (!exchange.response) return exchange.transportError ?? 'no answer';
  return exchange.response.incomplete?.message;
}

export function describeResponse(exchange: Exchange): string {
  if (!exchange.response) {
    const error = exchange.transportError ?? 'unknown transport error';
    return error.startsWith('no answer') ? error : `no answer (${error})`;
  }
  if (exchange.response.incomplete) return `${exchange.response.status}, then ${exchange.response.incomplete.message}`;
  const body = exchange.response.bodyText.slice(0, 400).replace(/\s+/g, ' ');
  const shown = body.length > 300 ? `${body.slice(0, 300)}… (${exchange.response.bodyText.length} characters)` : body;
  return `${exchange.response.status}${shown ? ` ${shown}` : ' (empty body)'}`;
}
