/**
 * @module conformance/pact/pact-file
 * Reads a pact file (Pact Specification V4, V3, or V2) into the interactions the runner
 * verifies, whichever consumer wrote it. The file is untrusted input: read up to a size bound,
 * scanned for depth and value count before JSON.parse, each part checked by a zod schema, and
 * every matching rule and generator compiled before any request goes (rules.ts). Anything wrong
 * is one PactFileError naming the interaction and the field, which the CLI reports as a usage
 * error (exit 2). Interactions that are not HTTP (V4 messages) are listed, not verified.
 */
import { z } from 'zod';
import { DocumentFileError, readDocumentFile } from '../../documents/index.js';
import { jsonTooComplex } from '../http/transport.js';
import { type GeneratorSet, noGenerators, readGenerators } from './generators.js';
import { PactFileError } from './pact-file-error.js';
import { parsePathExpression } from './path-expression.js';
import { emptyCategory, PatternCache, type RuleCategory, type RuleList, readCategory, readContext, readRuleList } from './rules.js';

export { PactFileError } from './pact-file-error.js';

/** Bounds on a pact file, whatever it holds. */
export const pactLimits = {
  /** Bytes of the file: a pact of 1,000 interactions is well under 4 MiB. */
  maxBytes: 8 * 1024 * 1024,
  maxDepth: 64,
  maxValues: 500_000,
  maxInteractions: 1000,
} as const;

export interface ProviderState {
  readonly name: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** A body as the pact states it: a JSON value, or text (a non-JSON media type, a decoded base64 body). */
export type PactBody =
  | { readonly kind: 'json'; readonly value: unknown; readonly contentType?: string }
  | { readonly kind: 'text'; readonly text: string; readonly contentType?: string };

export interface PactRequest {
  readonly method: string;
  /** As written in the pact (unencoded). */
  readonly path: string;
  readonly query: readonly (readonly [string, string])[];
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: PactBody;
  readonly generators: GeneratorSet;
}

export interface ResponseRules {
  readonly status?: RuleList;
  /** By header name, lower case. */
  readonly headers: ReadonlyMap<string, RuleList>;
  readonly body: RuleCategory;
}

export interface PactResponse {
  readonly status: number;
  /** Expected headers: the name as written, each value (a V3 "a, b" is one value). */
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: PactBody;
  readonly rules: ResponseRules;
  readonly generators: GeneratorSet;
}

export interface PactInteraction {
  /** 0-based position in the file's interactions. */
  readonly index: number;
  readonly description: string;
  readonly states: readonly ProviderState[];
  /** A V4 pending interaction: its failures are reported, advisory. */
  readonly pending: boolean;
  readonly request: PactRequest;
  readonly response: PactResponse;
}

export interface Pact {
  readonly source: string;
  readonly consumer: string;
  readonly provider: string;
  readonly specification: 'V2' | 'V3' | 'V4';
  readonly interactions: readonly PactInteraction[];
  /** Interactions the runner does not verify, with why (messages, V4 plugin interactions). */
  readonly notVerified: readonly string[];
}

const name = z.string().max(256);
const headerValue = z.union([z.string().max(8192), z.array(z.string().max(8192)).max(64)]);
const headerMap = z.record(z.string().max(256), headerValue);

const pactShape = z.object({
  consumer: z.object({ name }),
  provider: z.object({ name }),
  interactions: z.array(z.unknown()).max(pactLimits.maxInteractions),
  metadata: z
    .object({
      pactSpecification: z.object({ version: z.string().max(32) }).optional(),
      'pact-specification': z.object({ version: z.string().max(32) }).optional(),
      pactSpecificationVersion: z.string().max(32).optional(),
    })
    .optional(),
});

const providerState = z.object({ name: z.string().min(1).max(1024), params: z.record(z.string(), z.unknown()).optional() });

const interactionShape = z.object({
  type: z.string().max(64).optional(),
  description: z.string().min(1).max(1024),
  providerState: z.string().max(1024).optional(),
  providerStates: z.array(providerState).max(16).optional(),
  pending: z.boolean().optional(),
  request: z.object({
    method: z.string().regex(/^[A-Za-z]{1,16}$/, 'must be an HTTP method'),
    path: z.string().max(8192).optional(),
    query: z.union([z.string().max(8192), z.record(z.string().max(256), headerValue)]).optional(),
    headers: headerMap.optional(),
    body: z.unknown().optional(),
    generators: z.unknown().optional(),
  }),
  response: z.object({
    status: z.number().int().min(100).max(599),
    headers: headerMap.optional(),
    body: z.unknown().optional(),
    matchingRules: z.record(z.string(), z.unknown()).optional(),
    generators: z.unknown().optional(),
  }),
});

const v4Body = z.object({
  content: z.unknown().optional(),
  contentType: z.string().max(256).optional(),
  encoded: z.union([z.boolean(), z.string().max(16)]).optional(),
});

/** Whether a media type is JSON (application/json, application/problem+json). */
export function isJsonType(contentType: string | undefined): boolean {
  return /^\s*[\w.+-]+\/([\w.-]+\+)?json\s*(;|$)/i.test(contentType ?? '');
}

function headerOf(headers: readonly (readonly [string, string])[], wanted: string): string | undefined {
  return headers.find(([header]) => header.toLowerCase() === wanted)?.[1];
}

function flatHeaders(raw: z.infer<typeof headerMap> | undefined): [string, string][] {
  return Object.entries(raw ?? {}).map(([header, value]) => [header, Array.isArray(value) ? value.join(', ') : value]);
}

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
/** Visible ASCII, spaces and tabs inside: what can travel in a header line as it is. */
const headerText = /^[\t\x20-\x7e]*$/;

/** Request headers the runner can send as written: a CR or LF in one would split the request. */
function checkedRequestHeaders(headers: [string, string][], label: string): [string, string][] {
  for (const [name, value] of headers) {
    if (!headerName.test(name))
      throw new PactFileError(`${label}: request header ${JSON.stringify(name.slice(0, 40))} is not a header name`);
    if (!headerText.test(value))
      throw new PactFileError(`${label}: request header ${name} has characters a header cannot carry (control characters or non-ASCII)`);
  }
  return headers;
}

function queryPairs(raw: string | Record<string, string | string[]> | undefined): [string, string][] {
  if (raw === undefined) return [];
  if (typeof raw === 'string') return [...new URLSearchParams(raw)];
  return Object.entries(raw).flatMap(([key, value]) =>
    (Array.isArray(value) ? value : [value]).map((item): [string, string] => [key, item]),
  );
}

/** A body of the V4 form `{ content, contentType, encoded }`. */
function v4BodyOf(raw: unknown, headerType: string | undefined, where: string): PactBody | undefined {
  if (raw === undefined || raw === null) return undefined;
  const parsed = v4Body.safeParse(raw);
  if (!parsed.success) throw new PactFileError(`${where}: a V4 body must be { content, contentType, encoded }`);
  const { content, encoded } = parsed.data;
  if (content === undefined) return undefined;
  const contentType = parsed.data.contentType ?? headerType;
  const typed = contentType === undefined ? {} : { contentType };
  if (encoded === false || encoded === undefined) {
    if (typeof content === 'string' && !isJsonType(contentType)) return { kind: 'text', text: content, ...typed };
    return { kind: 'json', value: content, ...typed };
  }
  if (typeof content !== 'string') throw new PactFileError(`${where}: an encoded body's content must be a string`);
  const text = encoded === 'base64' || encoded === true ? Buffer.from(content, 'base64').toString('utf8') : content;
  if (encoded === 'json' || isJsonType(contentType)) {
    // An encoded body escaped the file's own depth scan: scan what it decodes to.
    const complex = jsonTooComplex(text, { maxDepth: pactLimits.maxDepth, maxValues: pactLimits.maxValues, what: 'the body' });
    if (complex) throw new PactFileError(`${where}: ${complex}`);
    try {
      return { kind: 'json', value: JSON.parse(text), ...typed };
    } catch {
      throw new PactFileError(`${where}: the body is declared JSON but does not parse`);
    }
  }
  return { kind: 'text', text, ...typed };
}

/** A body of the V2/V3 form: the value itself. */
function v3BodyOf(raw: unknown, headerType: string | undefined): PactBody | undefined {
  if (raw === undefined) return undefined;
  const typed = headerType === undefined ? {} : { contentType: headerType };
  if (typeof raw === 'string' && !isJsonType(headerType)) return { kind: 'text', text: raw, ...typed };
  return { kind: 'json', value: raw, ...typed };
}

/** V2 wrote every rule in one flat object: `$.body.x`, `$.headers.Name`, `$.status`. */
function splitV2Rules(rules: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  const header: Record<string, unknown> = {};
  const status: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rules)) {
    if (key === '$.body' || key.startsWith('$.body.') || key.startsWith('$.body[')) body[`$${key.slice('$.body'.length)}`] = value;
    else if (key.startsWith('$.headers.')) header[key.slice('$.headers.'.length)] = value;
    else if (key.startsWith('$.header.')) header[key.slice('$.header.'.length)] = value;
    else if (key === '$.status') status.$ = value;
  }
  return { body, header, status };
}

async function responseRules(raw: Record<string, unknown> | undefined, where: string, patterns: PatternCache): Promise<ResponseRules> {
  if (!raw) return { headers: new Map(), body: emptyCategory };
  const flat = Object.keys(raw).some((key) => key.startsWith('$.'));
  const categories = flat ? splitV2Rules(raw) : raw;
  const context = readContext(patterns);
  const headers = new Map<string, RuleList>();
  const headerRules = categories.header ?? categories.headers;
  if (headerRules !== undefined) {
    if (!headerRules || typeof headerRules !== 'object' || Array.isArray(headerRules))
      throw new PactFileError(`${where}.header: must be an object`);
    for (const [key, list] of Object.entries(headerRules)) {
      const expression = parsePathExpression(key);
      const first = typeof expression === 'string' ? undefined : expression.tokens[0];
      const header = first?.kind === 'field' ? first.name : key;
      headers.set(header.toLowerCase(), await readRuleList(list, `${where}.header['${key.slice(0, 80)}']`, context));
    }
  }
  let status: RuleList | undefined;
  const statusRules = categories.status;
  if (statusRules && typeof statusRules === 'object' && !Array.isArray(statusRules)) {
    // V4 keys the status's one rule list by "$" (or nothing); a bare list is accepted too.
    const object = statusRules as Record<string, unknown>;
    const list = 'matchers' in object || 'match' in object ? object : Object.values(object)[0];
    if (list !== undefined) status = await readRuleList(list, `${where}.status`, context);
  }
  return {
    ...(status ? { status } : {}),
    headers,
    body: await readCategory(categories.body, `${where}.body`, context),
  };
}

function specificationOf(metadata: z.infer<typeof pactShape>['metadata'], interactions: readonly unknown[]): Pact['specification'] {
  const version =
    metadata?.pactSpecification?.version ?? metadata?.['pact-specification']?.version ?? metadata?.pactSpecificationVersion ?? '';
  const major = /^\s*v?(\d+)/i.exec(version)?.[1];
  if (major === '4') return 'V4';
  if (major === '3') return 'V3';
  if (major === '1' || major === '2') return 'V2';
  const typed = interactions.some((interaction) => typeof (interaction as { type?: unknown } | null)?.type === 'string');
  return typed ? 'V4' : 'V3';
}

async function readInteraction(options: {
  raw: unknown;
  index: number;
  specification: Pact['specification'];
  patterns: PatternCache;
}): Promise<PactInteraction | string> {
  const { raw, index, specification } = options;
  const described = (raw as { description?: unknown } | null)?.description;
  const label = `interaction ${index + 1}${typeof described === 'string' ? ` '${described.slice(0, 80)}'` : ''}`;
  const type = (raw as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && type !== 'Synchronous/HTTP')
    return `${label}: of type ${type.slice(0, 40)} (only Synchronous/HTTP interactions are verified)`;
  const parsed = interactionShape.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PactFileError(`${label}: ${issue?.path.join('.') || 'the interaction'}: ${issue?.message ?? 'not an HTTP interaction'}`);
  }
  const { request, response } = parsed.data;
  const path = request.path ?? '/';
  if (!path.startsWith('/')) throw new PactFileError(`${label}: request.path must start with '/'`);
  const requestHeaders = checkedRequestHeaders(flatHeaders(request.headers), label);
  const responseHeaders = flatHeaders(response.headers);
  const v4 = specification === 'V4';
  const requestBody = v4
    ? v4BodyOf(request.body, headerOf(requestHeaders, 'content-type'), `${label}: request.body`)
    : v3BodyOf(request.body, headerOf(requestHeaders, 'content-type'));
  const responseBody = v4
    ? v4BodyOf(response.body, headerOf(responseHeaders, 'content-type'), `${label}: response.body`)
    : v3BodyOf(response.body, headerOf(responseHeaders, 'content-type'));
  const states = parsed.data.providerStates
    ? parsed.data.providerStates.map((state) => ({ name: state.name, params: state.params ?? {} }))
    : parsed.data.providerState
      ? [{ name: parsed.data.providerState, params: {} }]
      : [];
  return {
    index,
    description: parsed.data.description,
    states,
    pending: parsed.data.pending === true,
    request: {
      method: request.method.toUpperCase(),
      path,
      query: queryPairs(request.query),
      headers: requestHeaders,
      ...(requestBody ? { body: requestBody } : {}),
      generators: readGenerators(request.generators, `${label}: request.generators`),
    },
    response: {
      status: response.status,
      headers: responseHeaders,
      ...(responseBody ? { body: responseBody } : {}),
      rules: await responseRules(response.matchingRules, `${label}: response.matchingRules`, options.patterns),
      generators: response.generators === undefined ? noGenerators : readGenerators(response.generators, `${label}: response.generators`),
    },
  };
}

/** Parses a pact from its text (`source` names it in messages). */
export async function parsePact(text: string, source: string): Promise<Pact> {
  const complex = jsonTooComplex(text, { maxDepth: pactLimits.maxDepth, maxValues: pactLimits.maxValues, what: 'the pact file' });
  if (complex) throw new PactFileError(`${source}: ${complex}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new PactFileError(`${source}: not JSON (${(error as Error).message.slice(0, 120)})`);
  }
  const shape = pactShape.safeParse(json);
  if (!shape.success) {
    const issue = shape.error.issues[0];
    throw new PactFileError(`${source}: not a pact file: ${issue?.path.join('.') || 'the file'}: ${issue?.message ?? 'unexpected shape'}`);
  }
  const specification = specificationOf(shape.data.metadata, shape.data.interactions);
  const patterns = new PatternCache();
  const interactions: PactInteraction[] = [];
  const notVerified: string[] = [];
  for (const [index, raw] of shape.data.interactions.entries()) {
    const read = await readInteraction({ raw, index, specification, patterns });
    if (typeof read === 'string') notVerified.push(read);
    else interactions.push(read);
  }
  if (interactions.length === 0) throw new PactFileError(`${source}: the pact has no HTTP interaction to verify`);
  return { source, consumer: shape.data.consumer.name, provider: shape.data.provider.name, specification, interactions, notVerified };
}

/**
 * Reads and parses a pact file, reading at most pactLimits.maxBytes of it, through the loader's
 * file reader (src/documents, A-27/A-30): a regular file only, never a FIFO or a device, never
 * opened for a blocking read.
 */
export async function readPactFile(file: string): Promise<Pact> {
  let text: string;
  try {
    ({ text } = await readDocumentFile({ path: file, maxBytes: pactLimits.maxBytes }));
  } catch (error) {
    if (!(error instanceof DocumentFileError)) throw error;
    if (error.problem === 'too-large')
      throw new PactFileError(`${file}: larger than ${pactLimits.maxBytes / 1024 / 1024} MiB; a pact file has at most that`);
    throw new PactFileError(error.problem === 'missing' ? `${file}: cannot be read (no such file)` : error.message);
  }
  return parsePact(text, file);
}
