/**
 * @module profile/profile
 * A server profile document (docs/profiles.md, A-50): `profile: 2` (or 1) and the entries, grouped by
 * their register entry (`A-21: { malformed-json: {status: 400, code: invalid_json} }`). One zod
 * schema reads it (published as profile.schema.json); `resolveProfile` then refuses an entry
 * that would make the mock break a rule the contract states, naming the entry and the rule, and
 * lays the declared entries over the defaults, which are exactly the mock's behaviour without a
 * profile. Isomorphic: the engine, the MSW handlers and the runner read the same object.
 */
import { z } from 'zod';
import { shapeBreach } from '../contract/document-budget.js';
import { bodyLimits } from '../contract/limits.js';
import {
  currentFormat,
  type DeclaredError,
  type EntryName,
  type EntryValue,
  entryNames,
  entryTable,
  formatOf,
  jobStates,
  type ProfileEntries,
  type StatusRule,
} from './entries.js';
import { timingRuleProblems } from './entries-timing.js';
import { hasParts, keeps400, partsOf } from './entry-parts.js';
import { defaultMethodEntries } from './methods-vocabulary.js';

/**
 * The largest schema-valid createEvaluation body in compact UTF-8 JSON (every string at its
 * longest in 4-byte code points; test/profile/profile.test.ts measures it). A body limit below
 * it would answer 413 to a valid request.
 */
export const largestValidCreateBytes = 1_127_726;

/** Today's behaviour, entry by entry (docs/assumptions.md). */
export const defaultEntries: { readonly [Name in EntryName]: EntryValue<Name> } = {
  'A-2.over-maximum': { status: 413, code: 'limit_exceeded' },
  'A-3.timeline': { first: 'QUEUED', through: ['QUEUED', 'RUNNING', 'COMPLETE'] },
  'A-4.evaluation': { complete: 'present', failed: 'absent' },
  'A-5.replay': { compare: 'canonical-json' },
  'A-7.invalid-request': { status: 400, code: 'invalid_request' },
  'A-8.server-failure': { status: 500, code: 'internal_error' },
  'A-8.unavailable': { status: 503, code: 'service_unavailable', retryAfter: true },
  'A-9.health': { body: { status: 'ok' } },
  'A-10.caller': { header: 'Authorization', scheme: 'any' },
  'A-10.without-credentials': 'anonymous',
  'A-10.unknown-job': { status: 404, code: 'job_not_found' },
  'A-10.other-callers-job': { status: 404, code: 'job_not_found' },
  'A-11.rate-limited': { status: 429, code: 'rate_limited', retryAfter: true },
  'A-13.body-too-large': { status: 413, code: 'body_too_large', limitBytes: bodyLimits.createEvaluationBytes },
  'A-16.missing-key': { status: 400, code: 'missing_idempotency_key' },
  'A-16.conflict': { status: 409, code: 'idempotency_key_conflict' },
  'A-20.undeclared-method': { status: 405, code: 'method_not_allowed', allow: true },
  'A-20.unknown-route': { status: 404, code: 'route_not_found' },
  'A-21.malformed-json': { status: 400, code: 'invalid_json' },
  'A-21.not-an-object': { status: 400, code: 'invalid_body' },
  'A-21.media-type': { status: 415, code: 'unsupported_media_type' },
  'A-23.invalid-job-id': { status: 404, code: 'job_not_found' },
  // Credentials and headers (format 2): a malformed or other-scheme credential is no credential
  // (A-10, A-54); the mock sends none of these headers today, and Retry-After: 1.
  'A-10.malformed-credentials': 'anonymous',
  'A-10.other-scheme': 'anonymous',
  'A-3.accepted-headers': {},
  'A-3.job-headers': {},
  'A-7.error-headers': {},
  'A-16.replay-headers': {},
  'A-11.retry-after': { seconds: 1 },
  'A-8.retry-after': { seconds: 1 },
  ...defaultMethodEntries,
  // Today's behaviour is each scenario's own timeline, limitations and the served contract's limits.
  'A-3.progression': { by: 'scenario' },
  'A-4.limitations': {},
  'A-13.body-limits': {},
};

/** `A-21.malformed-json` → ['A-21', 'malformed-json']. */
export function splitEntryName(name: EntryName): [group: string, entry: string] {
  const dot = name.indexOf('.');
  return [name.slice(0, dot), name.slice(dot + 1)];
}

/** The register entries the profile's groups are named after, in the register's order. */
export const groupNames = [...new Set(entryNames.map((name) => splitEntryName(name)[0]))].sort(
  (a, b) => Number(a.slice(2)) - Number(b.slice(2)),
);

function groupSchema(group: string) {
  const shape: Record<string, z.ZodType> = {};
  for (const name of entryNames) {
    const [owner, entry] = splitEntryName(name);
    if (owner === group) shape[entry] = entryTable[name].schema.optional();
  }
  return z.strictObject(shape).describe(`Entries decided by docs/assumptions.md ${group}.`);
}

function buildDocumentSchema() {
  return z.strictObject({
    $schema: z.string().max(2048).optional().describe('The JSON Schema of this file, for editors.'),
    profile: z.union([z.literal(1), z.literal(2)]).describe('The version of the profile format: 2 (1 still loads).'),
    ...Object.fromEntries(groupNames.map((group) => [group, groupSchema(group).optional()])),
  });
}
let documentSchema: ReturnType<typeof buildDocumentSchema> | undefined;

/** The document as written: the version and the groups of entries, every one optional. Built on first use (entries.ts says why). */
export function profileDocumentSchema(): ReturnType<typeof buildDocumentSchema> {
  documentSchema ??= buildDocumentSchema();
  return documentSchema;
}

/** The JSON Schema published as profile.schema.json. */
export function profileJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(profileDocumentSchema(), { target: 'draft-2020-12', io: 'input' }),
    $id: 'https://evidence-harness.dev/profile.schema.json',
    title: 'evidence-harness server profile',
  };
}

/** The deepest a profile goes is a health body (profileBounds.health.maxDepth below its entry); nothing needs more. */
const maxProfileDepth = 16;
/** A profile is a few dozen small entries and one bounded health body. */
const maxProfileValues = 10_000;

/**
 * What makes a profile document too large to read at all (too deep, too many values), or
 * undefined. Checked before the schema, by a loop over a stack: zod's walk recurses, and a
 * document handed to the engine as an object has met no loader's bounds.
 */
export function profileShapeProblem(value: unknown): string | undefined {
  const breach = shapeBreach(value, { maxDepth: maxProfileDepth, maxNodes: maxProfileValues });
  if (!breach) return undefined;
  return breach.bound === 'values'
    ? `it holds more than ${maxProfileValues} values`
    : `it is nested more than ${maxProfileDepth} levels deep`;
}

/** Keys that name a JavaScript object's own machinery: a reader may drop them (zod did: `{}`) or take them as a prototype. */
const reservedKeys = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Every key of the document named `__proto__`, `constructor` or `prototype`, with its path.
 * Called after profileShapeProblem, so the walk is bounded; a few are named, not all.
 */
function reservedKeyProblems(document: unknown): { entry: string; message: string; path: string[]; atKey: true }[] {
  const problems: { entry: string; message: string; path: string[]; atKey: true }[] = [];
  const stack: { value: unknown; path: string[] }[] = [{ value: document, path: [] }];
  while (stack.length > 0 && problems.length < 5) {
    const next = stack.pop()!;
    if (!next.value || typeof next.value !== 'object') continue;
    for (const key of Object.keys(next.value)) {
      const path = [...next.path, key];
      if (reservedKeys.has(key)) {
        const entry = path.length >= 2 ? `${path[0]}.${path[1]}` : path[0]!;
        // Below the entry, the path to the key, each segment (a server's key, in a learnt body) cut short.
        const within = path
          .slice(2)
          .map((segment) => (segment.length > 40 ? `${segment.slice(0, 39)}…` : segment))
          .join('.');
        problems.push({
          entry,
          message: `${within ? `${within}: ` : ''}the key '${key}' is refused (__proto__, constructor and prototype name a JavaScript object's machinery: a reader would drop or misread it); rename it`,
          path,
          atKey: true,
        });
      } else stack.push({ value: (next.value as Record<string, unknown>)[key], path });
    }
  }
  return problems;
}

/** A profile the harness cannot use: each problem names its entry (or path) and the rule. */
export class ProfileError extends Error {
  override readonly name = 'ProfileError';
  constructor(
    readonly source: string,
    readonly problems: readonly {
      readonly entry: string;
      readonly message: string;
      readonly path?: readonly (string | number)[];
      /** The problem is the last key of `path` itself (an unknown or reserved key), not its value. */
      readonly atKey?: boolean;
    }[],
  ) {
    super(`${source}: profile refused:\n${problems.map((problem) => `  ${problem.entry}: ${problem.message}`).join('\n')}`);
  }
}

function knownEntries(group: string): string {
  const names = entryNames.filter((name) => splitEntryName(name)[0] === group).map((name) => splitEntryName(name)[1]);
  return names.length > 0 ? names.join(', ') : `none (${group} is not a group)`;
}

/** The profile in force: every entry's value, and which were declared (the rest are defaults). */
export interface ServerProfile {
  readonly entries: { readonly [Name in EntryName]: EntryValue<Name> };
  readonly declared: ReadonlySet<EntryName>;
  /** Where it came from (a file, 'default', 'inline'). */
  readonly source: string;
  /** The format the document was written in (1 or 2); a resolved profile holds either. */
  readonly format: 1 | 2;
  /** True when every entry is today's behaviour: the engine then takes no profile path at all. */
  readonly isDefault: boolean;
}

export const defaultProfile: ServerProfile = Object.freeze({
  entries: defaultEntries,
  declared: new Set<EntryName>(),
  source: 'default',
  format: currentFormat,
  isDefault: true,
});

function statusProblem(value: number, rule: StatusRule): string | undefined {
  const { allowed } = rule;
  const ok = Array.isArray(allowed)
    ? allowed.includes(value)
    : value >= 400 && value <= 499 && !(allowed as { any4xxExcept: readonly number[] }).any4xxExcept.includes(value);
  if (ok) return undefined;
  const list = Array.isArray(allowed)
    ? allowed.join(' or ')
    : `a 4xx other than ${(allowed as { any4xxExcept: readonly number[] }).any4xxExcept.join(', ')}`;
  return `status ${value} breaks a rule the contract states: ${rule.because} (allowed: ${list})`;
}

const stateRank: Readonly<Record<string, number>> = { QUEUED: 0, RUNNING: 1, COMPLETE: 2, FAILED: 2 };

/** The rules between values and the contract that zod's shapes cannot say. */
function ruleProblems(entries: ProfileEntries): { entry: string; message: string }[] {
  const problems: { entry: string; message: string }[] = [];
  for (const name of entryNames) {
    const value = entries[name] as unknown;
    const rule = (entryTable[name] as { statuses?: StatusRule }).statuses;
    if (value === undefined || !rule || typeof value !== 'object') continue;
    const problem = statusProblem((value as DeclaredError).status, rule);
    if (problem) problems.push({ entry: name, message: problem });
    // Each part is held to the same rule, but on an operation without a 413 a limit's answer is 400 (A-2).
    for (const part of partsOf(value)) {
      const partRule = keeps400(name, part.operation)
        ? { allowed: [400], because: `${part.operation} documents no 413: its answers over a limit are 400 (A-2)` }
        : rule;
      const partProblem = statusProblem(part.answer.status, partRule);
      if (partProblem) problems.push({ entry: name, message: `${part.at}: ${partProblem}` });
    }
  }
  const method = entries['A-20.undeclared-method'];
  // A part answers with its own Allow switch where it sets one, else the entry's.
  if (
    method &&
    [{ status: method.status, allow: method.allow }, ...partsOf(method).map((part) => ({ allow: method.allow, ...part.answer }))].some(
      (answer) => answer.status === 405 && !answer.allow,
    )
  )
    problems.push({ entry: 'A-20.undeclared-method', message: 'a 405 must carry an Allow header (RFC 9110 §15.5.6): set allow: true' });
  const limit = entries['A-13.body-too-large']?.limitBytes;
  if (limit !== undefined && limit < largestValidCreateBytes)
    problems.push({
      entry: 'A-13.body-too-large',
      message: `limitBytes ${limit} would refuse a valid request: the largest valid createEvaluation body is ${largestValidCreateBytes} bytes (the contract's limits allow it)`,
    });
  const timeline = entries['A-3.timeline'];
  if (timeline) {
    const { first, through } = timeline;
    if (through[0] !== first) problems.push({ entry: 'A-3.timeline', message: `through must begin with first (${first})` });
    for (let index = 1; index < through.length; index += 1)
      if (
        stateRank[through[index]!]! <= stateRank[through[index - 1]!]! &&
        !(through[index - 1] === 'COMPLETE' && through[index] === 'FAILED')
      )
        problems.push({
          entry: 'A-3.timeline',
          message: `${through[index - 1]} → ${through[index]} moves backwards or repeats (a job moves QUEUED → RUNNING → COMPLETE or FAILED)`,
        });
    if (!through.some((state) => state === 'COMPLETE' || state === 'FAILED'))
      problems.push({ entry: 'A-3.timeline', message: 'through names no final state (COMPLETE or FAILED): a job must end' });
  }
  problems.push(...timingRuleProblems(entries, { largestValidCreateBytes }));
  return problems;
}

/**
 * Reads a parsed profile document: its shape (zod), then the contract's rules. Throws
 * ProfileError naming every refused entry; returns the profile in force.
 */
export function resolveProfile(document: unknown, source = 'inline'): ServerProfile {
  const tooBig = profileShapeProblem(document);
  if (tooBig) throw new ProfileError(source, [{ entry: '(root)', message: `refused: ${tooBig}` }]);
  const reserved = reservedKeyProblems(document);
  if (reserved.length > 0) throw new ProfileError(source, reserved);
  const parsed = profileDocumentSchema().safeParse(document);
  if (!parsed.success)
    throw new ProfileError(
      source,
      parsed.error.issues.flatMap((issue) => {
        const path = issue.path.map(String);
        const keys = (issue as { keys?: string[] }).keys;
        // An unknown key is a problem of its own entry, named in full.
        if (keys)
          return keys.map((key) => ({
            entry: [...path, key].join('.').slice(0, 120),
            message: `unknown ${path.length === 0 ? 'group' : 'entry'}; known: ${path.length === 0 ? `profile, ${groupNames.join(', ')}` : knownEntries(path[0]!)}`,
            path: [...path, key],
            atKey: true,
          }));
        const entry = path.length >= 2 ? `${path[0]}.${path[1]}` : (path[0] ?? '(root)');
        // A key may be a server's (a learnt health body's): each is cut short in the message.
        const within = path.slice(2).map((segment) => (segment.length > 40 ? `${segment.slice(0, 39)}…` : segment));
        return [{ entry, message: `${within.length > 0 ? `${within.join('.')}: ` : ''}${issue.message}`, path }];
      }),
    );
  const entries: ProfileEntries = {};
  const groups = parsed.data as unknown as Record<string, Record<string, unknown> | undefined>;
  for (const name of entryNames) {
    const [group, entry] = splitEntryName(name);
    const value = groups[group]?.[entry];
    if (value !== undefined) (entries as Record<string, unknown>)[name] = value;
  }
  const format = (parsed.data as { profile: 1 | 2 }).profile;
  const problems = [
    ...(format === 1
      ? Object.keys(entries)
          .filter((name) => formatOf(name as EntryName) === 2)
          .map((name) => ({
            entry: name,
            message: 'is an entry of profile format 2: set profile: 2 (profile --upgrade FILE rewrites a format 1 file)',
          }))
      : []),
    ...(format === 1
      ? Object.entries(entries)
          .filter(([name, value]) => formatOf(name as EntryName) === 1 && hasParts(value))
          .map(([name]) => ({
            entry: name,
            message:
              'answers per operation or condition are profile format 2: set profile: 2 (profile --upgrade FILE rewrites a format 1 file)',
          }))
      : []),
    ...ruleProblems(entries),
  ];
  if (problems.length > 0) throw new ProfileError(source, problems);
  const declared = new Set(Object.keys(entries) as EntryName[]);
  // An entry declares its parts; a part it leaves out (an evaluation at FAILED no run saw) keeps its default.
  const merged = { ...defaultEntries } as Record<string, unknown>;
  for (const [name, value] of Object.entries(entries)) {
    const fallback = defaultEntries[name as EntryName];
    merged[name] = value && typeof value === 'object' && fallback && typeof fallback === 'object' ? { ...fallback, ...value } : value;
  }
  const isDefault = [...declared].every((name) => JSON.stringify(merged[name]) === JSON.stringify(defaultEntries[name]));
  return { entries: merged as ServerProfile['entries'], declared, source, format, isDefault };
}

/**
 * What `profile --check` would refuse in one entry's value (its shape, its bounds, the
 * contract's rules), or undefined: the learner asks before it writes an entry.
 */
export function entryProblem(name: EntryName, value: unknown): string | undefined {
  const [group, entry] = splitEntryName(name);
  try {
    resolveProfile({ profile: currentFormat, [group]: { [entry]: value } }, 'learnt');
    return undefined;
  } catch (error) {
    if (!(error instanceof ProfileError)) throw error;
    return error.problems.map((problem) => problem.message).join('; ');
  }
}

/** A profile given to an engine option: one already resolved, or a document to resolve. */
export function profileOption(value: unknown): ServerProfile {
  if (value === undefined) return defaultProfile;
  if (isServerProfile(value)) return value;
  return resolveProfile(value);
}

function isServerProfile(value: unknown): value is ServerProfile {
  return (
    typeof value === 'object' &&
    value !== null &&
    'entries' in value &&
    'declared' in value &&
    (value as ServerProfile).declared instanceof Set
  );
}

/** The document of a profile: the declared entries (or all, with `all`), grouped. */
export function profileDocument(profile: ServerProfile, options: { all?: boolean } = {}): Record<string, unknown> {
  const document: Record<string, Record<string, unknown>> = {};
  for (const name of entryNames) {
    if (!options.all && !profile.declared.has(name)) continue;
    const [group, entry] = splitEntryName(name);
    document[group] ??= {};
    document[group][entry] = profile.entries[name];
  }
  return { profile: currentFormat, ...document };
}

export { jobStates };
