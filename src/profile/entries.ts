/**
 * @module profile/entries
 * The vocabulary of a server profile (docs/profiles.md, docs/assumptions.md A-50): one entry per
 * point the contract leaves "not shown" that has more than one reasonable answer, named by the
 * register entry that decides it (`A-21.malformed-json`). Each entry is a small declared fact;
 * its shape is a zod schema here, and the rule of the contract it may not break sits beside it,
 * so the schema, the refusal at load and the runner's checks read one table. Isomorphic.
 */
import { z } from 'zod';
import { bodyLimits, limits } from '../contract/limits.js';
import { challengeValue, credentialAndHeaderEntries } from './entries-credentials.js';
import { methodEntries } from './entries-methods.js';
import { timingEntries } from './entries-timing.js';
import { conditionsOf, partExtras, partsShape } from './entry-parts.js';

/**
 * What a profile may hold is what the mock can bear (docs/reliability.md, "Profiles"): the
 * bounds every entry is held to, by `profile --check`, `mock --profile`, the engine's
 * `profile` option and the learner alike (they all read this one schema).
 */
export const profileBounds = {
  /** The contract's bound on an Error `code`. */
  codeLength: limits.errorCodeLength.max,
  /** The largest body the mock reads (a served document's x-max-body-bytes stops there too). */
  maxLimitBytes: bodyLimits.maxDocumentBodyBytes,
  /** The health body, answered whole to every GET /health. */
  health: {
    /** Levels of objects and arrays inside the body. */
    maxDepth: 8,
    /** Keys and array items counted together with every scalar. */
    maxValues: 1000,
    /** Keys of one object, items of one array. */
    maxItems: 256,
    /** Characters of a key. */
    maxKeyLength: 128,
    /** Characters of a string value. */
    maxStringLength: 2048,
    /** The body as compact JSON, in UTF-16 code units. */
    maxJsonLength: 32 * 1024,
  },
} as const;

/**
 * Text a person reads in a terminal or a YAML file: no control or format character, no line or
 * paragraph separator, no lone surrogate, no noncharacter (YAML refuses U+FFFE and U+FFFF).
 */
export const unprintable = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\uFFFE\uFFFF]/u;

/** An Error `code` as a server may spell it: the contract's bound (80), printable characters only. */
const code = () =>
  z
    .string()
    .min(1)
    .max(profileBounds.codeLength)
    .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\uFFFE\uFFFF]+$/u, 'has a control or other unprintable character')
    .describe("The Error body's `code` answered in this situation: at most 80 printable characters.");

/** What is wrong with a health body the mock would answer, or undefined. A loop over a stack: the body may be deep. */
export function healthBodyProblem(body: unknown): string | undefined {
  const bounds = profileBounds.health;
  const stack: { value: unknown; depth: number; at: string }[] = [{ value: body, depth: 0, at: '' }];
  let values = 0;
  while (stack.length > 0) {
    const { value, depth, at } = stack.pop()!;
    values += 1;
    if (values > bounds.maxValues) return `it holds more than ${bounds.maxValues} values`;
    if (typeof value === 'string') {
      if (value.length > bounds.maxStringLength)
        return `the string at ${at || '/'} is ${value.length} characters; at most ${bounds.maxStringLength}`;
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (depth >= bounds.maxDepth) return `it nests deeper than ${bounds.maxDepth} levels (at ${at})`;
    const entries = Object.entries(value);
    if (entries.length > bounds.maxItems)
      return `${Array.isArray(value) ? 'the array' : 'the object'} at ${at || '/'} has ${entries.length} ${Array.isArray(value) ? 'items' : 'keys'}; at most ${bounds.maxItems}`;
    for (const [key, inner] of entries) {
      if (!Array.isArray(value) && key.length > bounds.maxKeyLength)
        return `a key at ${at || '/'} is ${key.length} characters; at most ${bounds.maxKeyLength}`;
      stack.push({ value: inner, depth: depth + 1, at: `${at}/${key.slice(0, 40)}` });
    }
  }
  const length = JSON.stringify(body).length;
  return length > bounds.maxJsonLength ? `it is ${length} characters of JSON; at most ${bounds.maxJsonLength}` : undefined;
}

const status = () => z.number().int().min(100).max(599).describe('The HTTP status answered in this situation.');

/** Statuses an entry may declare, and the rule of the contract that limits them. */
export interface StatusRule {
  /** The statuses allowed, or every 4xx but those listed in `except`. */
  readonly allowed: readonly number[] | { readonly any4xxExcept: readonly number[] };
  /** The rule in words, for the refusal at load. */
  readonly because: string;
}

/**
 * An error answer's entry: its status and code, what else `extra` adds, and format 2's optional
 * answers per operation and per condition (entry-parts.ts), `conditions` naming those it covers.
 */
export function errorEntry<Extra extends z.ZodRawShape>(extra: Extra, options: { readonly conditions?: readonly string[] } = {}) {
  // A part may set the entry's header switches (Retry-After, Allow) for its operation or condition.
  const extras = Object.fromEntries(
    Object.entries(extra)
      .filter(([name]) => (partExtras as readonly string[]).includes(name))
      .map(([name, schema]) => [name, () => schema as z.ZodType]),
  );
  return z.strictObject({
    status: status(),
    code: code(),
    ...extra,
    ...partsShape({ conditions: options.conditions ?? [], status, code, extras }),
  });
}

export const retryAfter = () => z.boolean().describe('Whether the answer carries a Retry-After header.');

export const jobStates = ['QUEUED', 'RUNNING', 'COMPLETE', 'FAILED'] as const;
export const presence = () => z.enum(['present', 'absent']);

/**
 * `since`: the profile format that introduced the entry (default 1). A format 1 file may not
 * declare a format 2 entry: its reader would not know it (profile --upgrade rewrites the file).
 */
export type LazyEntry = { readonly schema: () => z.ZodType; readonly statuses?: StatusRule; readonly since?: 2 };
type Built<Table> = {
  readonly [Name in keyof Table]: Table[Name] extends { readonly schema: () => infer Schema }
    ? Omit<Table[Name], 'schema'> & { readonly schema: Schema }
    : never;
};

/**
 * The table with each schema built on its first read. The engine imports this module for its
 * defaults, and building all the schemas was the largest part of a test file's first answer
 * after loading the modules (docs/performance.md, "Import cost"); only a profile given to the
 * engine, the runner's --profile and `profile` read them.
 */
function builtWhenRead<Table extends Record<string, LazyEntry>>(table: Table): Built<Table> {
  const entries = Object.entries(table).map(([name, { schema: make, ...rest }]) => {
    let built: z.ZodType | undefined;
    return [
      name,
      {
        ...rest,
        get schema() {
          built ??= make();
          return built;
        },
      },
    ];
  });
  return Object.fromEntries(entries) as Built<Table>;
}

/** Every entry: its schema, and for an error answer the statuses the contract leaves it. */
export const entryTable = builtWhenRead({
  'A-2.over-maximum': {
    schema: () =>
      errorEntry({}, { conditions: conditionsOf['A-2.over-maximum'] }).describe(
        'A value over a maximum of section 8 (createEvaluation; verifyReport answers 400 with this code).',
      ),
    statuses: {
      allowed: [413],
      because: 'createEvaluation documents 413 for input that exceeds limits (A-2, the required check negative_data_rejection)',
    },
  },
  'A-5.replay': {
    schema: () =>
      z
        .strictObject({
          compare: z
            .enum(['canonical-json', 'raw-bytes'])
            .describe('canonical-json: the same JSON value replays; raw-bytes: only the same bytes replay, a re-serialised body is a 409.'),
        })
        .describe('How a create under a used Idempotency-Key is compared with the first.'),
  },
  'A-7.invalid-request': {
    schema: () =>
      errorEntry({}, { conditions: conditionsOf['A-7.invalid-request'] }).describe(
        'A field, header or parameter breaking the contract (not over a maximum).',
      ),
    statuses: { allowed: [400], because: 'both operations with a body document 400 for an invalid request' },
  },
  'A-8.server-failure': {
    schema: () => errorEntry({}).describe('The service failed while processing.'),
    statuses: { allowed: [500], because: 'a failure while processing is a 500 (A-8); other 5xx are not this situation' },
  },
  'A-8.unavailable': {
    schema: () => errorEntry({ retryAfter: retryAfter() }).describe('The service is temporarily unable to process.'),
    statuses: { allowed: [503], because: 'temporarily unavailable is 503 (RFC 9110 §15.6.4)' },
  },
  'A-9.health': {
    schema: () =>
      z
        .strictObject({
          body: z
            .record(z.string().max(profileBounds.health.maxKeyLength), z.json(), {
              error: (issue) =>
                issue.code === 'invalid_key' ? `a key is over ${profileBounds.health.maxKeyLength} characters` : undefined,
            })
            .superRefine((body, context) => {
              const problem = healthBodyProblem(body);
              if (problem) context.addIssue({ code: 'custom', message: `refused: ${problem} (what the mock answers to GET /health)` });
            })
            .describe(
              `The health body: a JSON object. The runner holds a server to its keys and their JSON types. At most ${profileBounds.health.maxDepth} levels deep, ${profileBounds.health.maxValues} values, ${profileBounds.health.maxItems} keys or items per object or array, keys of ${profileBounds.health.maxKeyLength} and strings of ${profileBounds.health.maxStringLength} characters, ${profileBounds.health.maxJsonLength} characters of JSON.`,
            ),
        })
        .describe('The body of GET /health.'),
  },
  'A-10.caller': {
    schema: () =>
      z
        .strictObject({
          header: z
            .string()
            .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/, 'is not a header name')
            .describe('The request header whose value identifies a caller.'),
          scheme: z
            .string()
            .regex(/^(any|[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32})$/, "is not an authentication scheme, 'custom' or 'any'")
            .describe(
              "The scheme its value starts with (Bearer, Basic…: the learner writes only a name of IANA's HTTP Authentication Scheme Registry), 'custom' (a first word of the server's own, then the credential) or 'any'.",
            ),
        })
        .describe('Which header names the caller (jobs and keys are scoped per caller).'),
  },
  'A-10.without-credentials': {
    schema: () =>
      z
        .union([
          z.literal('anonymous').describe('Requests without credentials are one anonymous caller of their own.'),
          errorEntry({ challenge: challengeValue().optional() }).describe(
            'Requests to the operations without credentials are refused (format 2: on a 401, with this challenge).',
          ),
        ])
        .describe('What a request without credentials gets on the operations other than health.'),
    statuses: {
      allowed: [401, 403],
      because: 'a refusal for want of credentials is 401 or 403 (RFC 9110 §15.5.2, §15.5.4), under default',
    },
  },
  'A-10.unknown-job': {
    schema: () => errorEntry({}).describe('getJob of a jobId no job has.'),
    statuses: { allowed: [404], because: 'getJob documents 404 for a job unavailable to this caller' },
  },
  'A-10.other-callers-job': {
    schema: () => errorEntry({}).describe("getJob of another caller's job."),
    statuses: { allowed: [404], because: 'getJob documents 404 for a job unavailable to this caller' },
  },
  'A-11.rate-limited': {
    schema: () => errorEntry({ retryAfter: retryAfter() }).describe('Too many requests.'),
    statuses: { allowed: [429], because: 'too many requests is 429 (RFC 6585 §4)' },
  },
  'A-13.body-too-large': {
    schema: () =>
      errorEntry({
        limitBytes: z
          .number()
          .int()
          .min(1)
          .max(profileBounds.maxLimitBytes, {
            error: (issue) =>
              `limitBytes ${String(issue.input)} is over the largest body the mock reads: at most ${profileBounds.maxLimitBytes} bytes (16 MiB)`,
          })
          .optional()
          .describe(
            `The createEvaluation body limit, in bytes: at most ${profileBounds.maxLimitBytes} (16 MiB, the largest body the mock reads).`,
          ),
      }).describe('A createEvaluation body over the body limit (verifyReport answers 400 with this code).'),
    statuses: { allowed: [400, 413], because: 'createEvaluation documents 400 and 413 for input it refuses' },
  },
  'A-16.missing-key': {
    schema: () =>
      errorEntry({}, { conditions: conditionsOf['A-16.missing-key'] }).describe(
        'createEvaluation without an Idempotency-Key (condition required) or with an empty one (condition minLength).',
      ),
    statuses: { allowed: [400], because: 'a request without a required header is invalid: 400 (missing_required_header)' },
  },
  'A-16.conflict': {
    schema: () => errorEntry({}).describe('A used Idempotency-Key with another request.'),
    statuses: { allowed: [409], because: 'createEvaluation documents 409 for a key that conflicts with the request digest' },
  },
  'A-20.undeclared-method': {
    schema: () =>
      errorEntry({ allow: z.boolean().describe('Whether the answer carries an Allow header.') }).describe(
        'A contract path with a method it does not declare.',
      ),
    statuses: { allowed: { any4xxExcept: [409, 413] }, because: 'a request the service does not serve is a 4xx' },
  },
  'A-20.unknown-route': {
    schema: () =>
      errorEntry({}, { conditions: conditionsOf['A-20.unknown-route'] }).describe(
        "A path outside the contract; condition empty-path-parameter: an operation's path with an empty parameter (GET /v0/jobs/).",
      ),
    statuses: { allowed: { any4xxExcept: [405, 409, 413] }, because: 'a path the service does not have is a 4xx' },
  },
  'A-21.malformed-json': {
    schema: () => errorEntry({}).describe('A body that is not well-formed JSON.'),
    statuses: { allowed: [400], because: 'a body that is not JSON is an invalid request: 400 (malformed_json_rejected)' },
  },
  'A-21.not-an-object': {
    schema: () => errorEntry({}).describe('An empty body, or JSON that is not an object.'),
    statuses: { allowed: [400], because: 'a body that is not the documented object is an invalid request: 400' },
  },
  'A-21.media-type': {
    schema: () => errorEntry({}).describe('A body sent as another media type than application/json, or with none.'),
    statuses: {
      allowed: { any4xxExcept: [404, 405, 409, 413] },
      because: 'a body the service does not read is refused with a 4xx that no other condition of the operation claims',
    },
  },
  'A-23.invalid-job-id': {
    schema: () => errorEntry({}, { conditions: conditionsOf['A-23.invalid-job-id'] }).describe('getJob with a jobId over 128 characters.'),
    statuses: { allowed: { any4xxExcept: [405, 409, 413] }, because: 'getJob refuses input with 404 or a 4xx under default (A-23)' },
  },
  'A-3.timeline': {
    schema: () =>
      z
        .strictObject({
          first: z.enum(jobStates).describe('The status of a job in the 202 of its create.'),
          through: z.array(z.enum(jobStates)).min(1).max(4).describe('The states a job passes through, in order.'),
        })
        .describe('How a job moves (A-3, A-22).'),
  },
  'A-4.evaluation': {
    schema: () =>
      z
        .strictObject({
          complete: presence().optional().describe('Whether a COMPLETE job carries evaluation (default present).'),
          failed: presence().optional().describe('Whether a FAILED job carries evaluation (default absent).'),
        })
        .describe('When a Job carries evaluation.'),
  },
  ...credentialAndHeaderEntries,
  ...methodEntries,
  ...timingEntries,
} as const satisfies Record<string, LazyEntry>);

export type EntryName = keyof typeof entryTable;
export type EntryValue<Name extends EntryName> = z.output<(typeof entryTable)[Name]['schema']>;
export type ProfileEntries = { -readonly [Name in EntryName]?: EntryValue<Name> };

/** Every entry, in the register's order: by the A-number as a number (A-3 before A-23), then as the table lists them. */
export const entryNames = (Object.keys(entryTable) as EntryName[]).sort(
  (a, b) => Number(a.slice(2, a.indexOf('.'))) - Number(b.slice(2, b.indexOf('.'))),
);

/** The profile format that introduced `name`. */
export function formatOf(name: EntryName): 1 | 2 {
  return (entryTable[name] as { since?: 2 }).since ?? 1;
}

/** The newest profile format: what the learner and profile --upgrade write. */
export const currentFormat = 2;

/** An error answer as an entry declares it. */
export interface DeclaredError {
  readonly status: number;
  readonly code: string;
  readonly operations?: Readonly<Partial<Record<string, { readonly status: number; readonly code: string }>>>;
  readonly conditions?: Readonly<Partial<Record<string, { readonly status: number; readonly code: string }>>>;
}
