/**
 * @module documents/load-document
 * The one door for documents from outside (issue 32): every command and library entry that reads
 * an OpenAPI, Arazzo, scenario, profile, config or pact document by path or URL reads it here.
 *
 * ```ts
 * const { value, text, displayName } = await loadDocument({ source: './profile.yaml', purpose: 'profile' });
 * const { document } = await loadOpenApiDocument({ source, mode: 'dereference', allowRemoteRefs: false });
 * ```
 *
 * What it holds to (docs/assumptions.md A-30, A-31, A-33): a regular file only (never a FIFO, a
 * device, a socket or a folder, and none of them opened for a blocking read: documents/regular-file),
 * at most `maxBytes` before any parser sees it, YAML aliases, nesting and value count bounded
 * (documents/document-text, contract/document-budget), the whole reading within `timeBudgetMs`, and
 * for OpenAPI documents the `$ref` policy of ref-policy.ts, enforced inside swagger-parser's own
 * resolution through its resolver and parser options: the library follows the references, this
 * module decides which files and URLs it may read and reads them. A document named by URL is
 * fetched and resolved against that URL; its credentials never appear in `displayName` or in any
 * message (contract/secrets, the one scrubber).
 */
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { cyclePointer, documentLimits, pointerToken, schemaSizeProblem, shapeProblem } from '../contract/document-budget.js';
import { credentialsFromBaseUrl, Scrubber } from '../contract/secrets.js';
import { type AddressPolicy, strictAddressPolicy } from './address-guard.js';
import { lineFrame, withShortQuotes } from './document-text.js';
import { type DocumentTls, FetchTextError, fetchText } from './fetch-text.js';
import { nestingProblem } from './nesting-scan.js';
import { type DocumentBase, firstRefusal, hasOutsideRef, type RefPolicy, targetRefusal } from './ref-policy.js';
import { readRegularFile, UserFileError } from './regular-file.js';

/** What a document is read for: named in messages. */
export type DocumentPurpose = 'openapi' | 'arazzo' | 'scenario' | 'profile' | 'config' | 'pact' | 'coverage';

/** Why a document was not read. */
export type DocumentProblem =
  | 'missing'
  | 'unreadable'
  | 'not-regular'
  | 'too-large'
  | 'syntax'
  | 'budget'
  | 'ref-refused'
  | 'fetch'
  | 'timeout'
  | 'invalid';

/** A document refused or unreadable; `message` names it by its display name and says why, with no credential. */
export class DocumentError extends Error {
  override readonly name = 'DocumentError';
  readonly problem: DocumentProblem;
  constructor(options: { readonly problem: DocumentProblem; readonly message: string }) {
    super(options.message);
    this.problem = options.problem;
  }
}

export interface DocumentReadOptions {
  /** A file path or an http(s) URL. */
  readonly source: string;
  /** Bytes of each file or answer; default documentLimits.maxBytes (16 MiB). */
  readonly maxBytes?: number;
  /** The whole reading, `$ref`s and validation included; default documentLimits.timeBudgetMs. */
  readonly timeBudgetMs?: number;
  /** Trust for https URLs (--ca, --insecure). */
  readonly tls?: DocumentTls | undefined;
  /**
   * Values the named document may hold, below documentLimits.maxNodes: `diff` gives NEW what its
   * step budget has left after OLD, so two documents too large to compare are refused as soon as
   * they are parsed, before validation and bundling (A-35).
   */
  readonly maxValues?: number;
  /**
   * Which addresses a URL may reach (address-guard.ts, A-31): every `$ref`, every redirect hop
   * away from the named URL's origin, and the named URL itself unless `trustNamedOrigin`.
   * Default strict: public addresses only (`--allow-loopback`, `--allow-private` widen it).
   */
  readonly addressPolicy?: AddressPolicy;
  /**
   * The named URL was typed by the person running the command, so its origin is theirs to name
   * (`diff http://127.0.0.1:8080/openapi.yaml`): it and its same-origin redirects and `$ref`s
   * are reached whatever the policy. Default true; false for a URL an agent handed in (MCP).
   */
  readonly trustNamedOrigin?: boolean;
  /**
   * The caller's own stop (an MCP tool call's cancel, the server's SIGTERM): once it aborts, the
   * reading is abandoned as at the end of its time budget (a fetch's socket is closed), and the
   * load rejects with the signal's reason. Either ends the reading, whichever comes first.
   */
  readonly signal?: AbortSignal | undefined;
}

export interface LoadDocumentOptions extends DocumentReadOptions {
  readonly purpose: DocumentPurpose;
}

export interface LoadedDocument {
  /** The parsed value (plain JSON values). */
  readonly value: unknown;
  /** The text as read, for finding lines (document-text.ts locatePath); never print it whole. */
  readonly text: string;
  /** How to name the document in any output: the path as given, or the URL with credentials scrubbed. */
  readonly displayName: string;
  /** Where it was read from (a file's real path, or the URL finally read, credentials out). */
  readonly base: DocumentBase;
}

export function isHttpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

/** The scrubber of one source: its userinfo and credential parameters learnt, so no message repeats them. */
function scrubberOf(source: string): Scrubber {
  const scrubber = new Scrubber({ secrets: isHttpUrl(source) ? credentialsFromBaseUrl(source).secrets : [] });
  if (isHttpUrl(source)) scrubber.learnFromRequest({ url: source, headers: {} });
  return scrubber;
}

/** How `source` is named in output: a path as given, a URL without userinfo or credential parameters' values. */
export function displaySource(source: string): string {
  return isHttpUrl(source) ? new Scrubber().scrubUrl(source) : source;
}

/** A reading's context: its deadline, its scrubber, how a message names the source. */
interface Reading {
  readonly source: string;
  readonly shown: string;
  readonly scrubber: Scrubber;
  readonly signal: AbortSignal;
  readonly maxBytes: number;
  readonly maxNodes: number;
  readonly tls: DocumentTls | undefined;
  readonly policy: AddressPolicy;
  /** The named URL's origin when the person running the command typed it (trustNamedOrigin). */
  readonly trustedOrigin: string | undefined;
  /** A message with the raw source (and any URL in it) replaced and every credential taken out. */
  clean(message: string): string;
}

function refuse(reading: Reading, problem: DocumentProblem, message: string): DocumentError {
  return new DocumentError({ problem, message: reading.clean(`${reading.shown}: ${message}`) });
}

/**
 * Runs `work` within the time budget and while the caller's signal holds: past the budget, the
 * reading is abandoned and a DocumentError thrown; once the caller goes, it is abandoned and the
 * caller's reason thrown.
 */
async function withinBudget<T>(options: DocumentReadOptions, work: (reading: Reading) => Promise<T>): Promise<T> {
  const caller = options.signal;
  if (caller?.aborted) throw caller.reason;
  const budget = options.timeBudgetMs ?? documentLimits.timeBudgetMs;
  const controller = new AbortController();
  const shown = displaySource(options.source);
  const scrubber = scrubberOf(options.source);
  const reading: Reading = {
    source: options.source,
    shown,
    scrubber,
    signal: controller.signal,
    maxBytes: options.maxBytes ?? documentLimits.maxBytes,
    maxNodes: Math.min(documentLimits.maxNodes, options.maxValues ?? Number.POSITIVE_INFINITY),
    tls: options.tls,
    policy: options.addressPolicy ?? strictAddressPolicy,
    trustedOrigin: options.trustNamedOrigin !== false && isHttpUrl(options.source) ? originOf(options.source) : undefined,
    clean: (message) =>
      scrubber.scrub(
        message
          .split(options.source)
          .join(shown)
          .replace(/https?:\/\/[^\s"'`)]+/gi, (url) => scrubber.scrubUrl(url)),
      ),
  };
  const timeout = refuse(reading, 'timeout', `not read within ${budget / 1000} s, the time a document and its references may take`);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(timeout);
      reject(timeout);
    }, budget);
    timer.unref?.();
  });
  let onCallerGone: (() => void) | undefined;
  const callerGone = new Promise<never>((_, reject) => {
    if (!caller) return;
    onCallerGone = () => {
      controller.abort(caller.reason);
      reject(caller.reason);
    };
    caller.addEventListener('abort', onCallerGone, { once: true });
  });
  try {
    return await Promise.race([work(reading), expired, callerGone]);
  } finally {
    clearTimeout(timer);
    if (onCallerGone) caller?.removeEventListener('abort', onCallerGone);
    controller.abort(timeout);
  }
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The text of the source and where it was read from. */
async function readSource(reading: Reading): Promise<{ text: string; base: DocumentBase }> {
  const { source } = reading;
  if (isHttpUrl(source)) {
    const { baseUrl, authorization } = credentialsFromBaseUrl(source);
    try {
      const { text, url } = await fetchText({
        url: baseUrl,
        maxBytes: reading.maxBytes,
        signal: reading.signal,
        tls: reading.tls,
        policy: reading.policy,
        trustedOrigin: reading.trustedOrigin,
        authorization,
      });
      return { text, base: { kind: 'url', url } };
    } catch (error) {
      if (error instanceof FetchTextError) throw refuse(reading, 'fetch', error.message);
      throw error;
    }
  }
  if (/^[a-z][a-z\d+.-]+:/i.test(source))
    throw refuse(reading, 'unreadable', 'only a file path or an http(s) URL names a document (a file: URL is not read)');
  try {
    const { text, resolvedPath } = await readRegularFile({ path: source, maxBytes: reading.maxBytes });
    return { text, base: { kind: 'file', path: resolvedPath } };
  } catch (error) {
    if (error instanceof UserFileError) {
      const problem = error.problem === 'moved' ? 'unreadable' : error.problem;
      throw new DocumentError({ problem, message: reading.clean(error.message) });
    }
    throw error;
  }
}

/**
 * The value of a document's text, held to the budgets before anything walks it: the nesting scan
 * (nesting-scan.ts) before any parser, then JSON.parse or js-yaml, then the value's depth and
 * size (YAML aliases counted at each use, so an alias bomb is refused by what it expands to) and,
 * for OpenAPI documents, the schemas' enum and property counts. js-yaml rather than the yaml
 * package used for small files (document-text.ts): it is swagger-parser's own reader, ten
 * times faster on a large document (7 MB: 3.5 s against 35 s here), and it keeps an alias as one
 * shared object instead of expanding it, which the bounded walk then measures.
 */
async function parseText(reading: Reading, options: { text: string; name: string; where: string; openapi: boolean }): Promise<unknown> {
  const { text, where } = options;
  const json = /\.json$/i.test(options.name.split(/[?#]/)[0]!);
  const fail = (problem: DocumentProblem, message: string) =>
    new DocumentError({ problem, message: reading.clean(`${where}: ${withShortQuotes(message, text)}`) });
  yamlModule ??= await import('js-yaml');
  const nesting = nestingProblem(text);
  if (nesting) throw fail('budget', `refused: ${nesting}; it is not read (a parser would exhaust its stack)`);
  let value: unknown;
  try {
    value = json || /^\s*[[{]/.test(text) ? jsonFirst(text, json) : await yamlValue(text);
  } catch (error) {
    if (error instanceof RangeError) throw fail('budget', 'refused: it nests too deeply to parse');
    const mark = (error as { mark?: { line: number; column: number } }).mark;
    const reason =
      (error as { reason?: string }).reason ??
      String((error as Error).message)
        .split('\n')[0]!
        .replace(/ in JSON at position.*$/, '');
    const at = mark ? { line: mark.line + 1, column: mark.column + 1 } : undefined;
    const frame = at ? `:\n${lineFrame(text, at)}` : '';
    throw fail('syntax', `not valid ${json ? 'JSON' : 'YAML'}: ${reason}${at ? ` at line ${at.line}, column ${at.column}` : ''}${frame}`);
  }
  const shape = shapeProblem(value, { maxNodes: reading.maxNodes });
  if (shape) {
    const aliases = !json && /(^|[\s[{,:])\*[^\s,\]}]/.test(text);
    throw fail(
      'budget',
      aliases && shape.problem.includes('values')
        ? `refused: its YAML aliases expand beyond what is read (${shape.problem.replace('the document holds ', '')}, counting each use of an alias): an alias bomb`
        : `refused: ${shape.problem} (at ${shape.pointer || '/'})`,
    );
  }
  const schema = options.openapi ? schemaSizeProblem(value) : undefined;
  if (schema) throw fail('budget', `refused: the schema at ${schema.pointer}: ${schema.problem}`);
  return value;
}

/** JSON.parse, which is fastest; a text that only opens like JSON (flow-style YAML) is read as YAML after all. */
function jsonFirst(text: string, json: boolean): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (json) throw error;
    return yamlModule!.load(text, { schema: yamlModule!.JSON_SCHEMA });
  }
}

/** js-yaml, loaded on first use (a JSON document never needs it). */
let yamlModule: typeof import('js-yaml') | undefined;
async function yamlValue(text: string): Promise<unknown> {
  yamlModule ??= await import('js-yaml');
  return yamlModule.load(text, { schema: yamlModule.JSON_SCHEMA });
}

/**
 * Reads one document that refers to no other (an Arazzo, scenario, profile, config or pact
 * document; an OpenAPI document is read with loadOpenApiDocument, which follows its `$ref`s).
 * Throws DocumentError.
 */
export async function loadDocument(options: LoadDocumentOptions): Promise<LoadedDocument> {
  return withinBudget(options, async (reading) => {
    const { text, base } = await readSource(reading);
    const value = await parseText(reading, { text, name: options.source, where: reading.shown, openapi: false });
    return { value, text, displayName: reading.shown, base };
  });
}

export interface LoadOpenApiOptions extends DocumentReadOptions {
  /** `dereference`: every `$ref` replaced by what it names (loadContract); `bundle`: made local, kept in place (diff). */
  readonly mode: 'dereference' | 'bundle';
  /** Follow http(s) `$ref`s (never to loopback, private or link-local addresses). Default false. */
  readonly allowRemoteRefs?: boolean;
  /**
   * The folder whose files relative `$ref`s may reach. Default: the named document's own folder.
   * For documents that share files with a wider tree the caller trusts, such as this package's
   * own spec/control-api.yaml, which refers to scenarios/scenario.schema.json.
   */
  readonly refFolder?: string;
}

export interface LoadedOpenApiDocument extends LoadedDocument {
  /** The validated document, dereferenced or bundled as asked. */
  readonly document: Record<string, any>;
}

/** What one reading through swagger-parser keeps: the first refusal, said in our words rather than the library's. */
interface Resolution {
  refusal?: DocumentError;
  files: number;
}

function shownTarget(reading: Reading, target: string, root: DocumentBase): string {
  if (isHttpUrl(target)) return reading.scrubber.scrubUrl(target);
  const rootPath = root.kind === 'file' ? root.path : '';
  return target === rootPath ? reading.shown : decodeURIComponentSafe(target);
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** swagger-parser's options: its resolution, with our readers and parser in place of its own. */
function parserOptions(reading: Reading, policy: RefPolicy, root: DocumentBase, state: Resolution) {
  const refused = (error: DocumentError) => {
    state.refusal ??= error;
    return error;
  };
  return {
    resolve: {
      external: true,
      file: false,
      http: false,
      harness: {
        order: 1,
        canRead: true,
        read: async (file: { url: string }) => {
          const target = isHttpUrl(file.url) ? file.url : decodeURIComponentSafe(file.url);
          const shown = shownTarget(reading, target, root);
          const reason = await targetRefusal(target, policy);
          if (reason) throw refused(refuse(reading, 'ref-refused', `a $ref to ${shown} is refused: ${reason}`));
          state.files += 1;
          if (state.files > documentLimits.maxFiles)
            throw refused(refuse(reading, 'budget', `it refers to more than ${documentLimits.maxFiles} files`));
          if (isHttpUrl(target)) {
            // The origin the user typed may be on loopback or a private network (a docs server
            // of their own): its own files are reached as it was (fetchText's trustedOrigin).
            // Any other origin is judged. The URL's credentials go to its own origin only.
            const sameOrigin = originOf(target) === originOf(reading.source);
            const { authorization } = credentialsFromBaseUrl(reading.source);
            try {
              const fetched = await fetchText({
                url: target,
                maxBytes: reading.maxBytes,
                signal: reading.signal,
                tls: reading.tls,
                policy: reading.policy,
                trustedOrigin: reading.trustedOrigin,
                ...(sameOrigin ? { authorization } : {}),
              });
              return fetched.text;
            } catch (error) {
              if (error instanceof FetchTextError) throw refused(refuse(reading, 'fetch', `a $ref to ${shown}: ${error.message}`));
              throw error;
            }
          }
          try {
            return (await readRegularFile({ path: target, maxBytes: reading.maxBytes })).text;
          } catch (error) {
            if (error instanceof UserFileError)
              throw refused(refuse(reading, error.problem === 'moved' ? 'unreadable' : error.problem, `a $ref: ${error.message}`));
            throw error;
          }
        },
      },
    },
    parse: {
      json: false,
      yaml: false,
      text: false,
      binary: false,
      harness: {
        order: 1,
        canParse: true,
        parse: async (file: { url: string; data: string | Buffer }) => {
          const target = isHttpUrl(file.url) ? file.url : decodeURIComponentSafe(file.url);
          const shown = shownTarget(reading, target, root);
          const text = typeof file.data === 'string' ? file.data : file.data.toString('utf8');
          let value: unknown;
          try {
            value = await parseText(reading, { text, name: target, where: shown, openapi: true });
          } catch (error) {
            if (error instanceof DocumentError) throw refused(error);
            throw error;
          }
          const base: DocumentBase = isHttpUrl(target) ? { kind: 'url', url: target } : { kind: 'file', path: target };
          refuseRefs({ reading, value, base, policy, shown, refused });
          return value;
        },
      },
    },
    dereference: { circular: true as const },
  };
}

function refuseRefs(options: {
  reading: Reading;
  value: unknown;
  base: DocumentBase;
  policy: RefPolicy;
  shown: string;
  refused: (error: DocumentError) => DocumentError;
}): void {
  const found = firstRefusal(options.value, options.base, options.policy);
  if (!found) return;
  const ref = options.reading.scrubber.scrubUrl(found.ref).slice(0, 200);
  throw options.refused(
    new DocumentError({
      problem: 'ref-refused',
      message: options.reading.clean(`${options.shown}: the $ref at ${found.pointer} ('${ref}') is refused: ${found.reason}`),
    }),
  );
}

/**
 * Reads, resolves and validates an OpenAPI document: the named file or URL, every `$ref` the
 * policy allows (ref-policy.ts), swagger-parser's validation. Throws DocumentError, with the
 * JSON pointer of a refused `$ref` and the reason.
 */
export async function loadOpenApiDocument(options: LoadOpenApiOptions): Promise<LoadedOpenApiDocument> {
  return withinBudget(options, async (reading) => {
    const { text, base } = await readSource(reading);
    const value = await parseText(reading, { text, name: options.source, where: reading.shown, openapi: true });
    const policy: RefPolicy = {
      allowRemoteRefs: options.allowRemoteRefs === true,
      ...(base.kind === 'file' ? { folder: options.refFolder === undefined ? dirname(base.path) : realpathSync(options.refFolder) } : {}),
    };
    const state: Resolution = { files: 0 };
    refuseRefs({ reading, value, base, policy, shown: reading.shown, refused: (error) => error });
    const location = base.kind === 'file' ? base.path : base.url;
    const settings = parserOptions(reading, policy, base, state);
    // A document that refers only into itself has nothing more to read: the library's crawl for
    // outside files, and bundling (which would change nothing), are a second or more of a 9 MB
    // document's reading.
    const outside = hasOutsideRef(value);
    const parserSettings = outside ? settings : { ...settings, resolve: { ...settings.resolve, external: false } };
    let document: Record<string, any>;
    try {
      if (options.mode === 'dereference') {
        document = (await SwaggerParser.validate(location, value as never, parserSettings as never)) as unknown as Record<string, any>;
      } else {
        document = outside
          ? ((await SwaggerParser.bundle(location, value as never, parserSettings as never)) as unknown as Record<string, any>)
          : (value as Record<string, any>);
        // validate() dereferences what it is given in place; a copy keeps the bundled form intact.
        await SwaggerParser.validate(location, structuredClone(document) as never, parserSettings as never);
      }
    } catch (error) {
      if (state.refusal) throw state.refusal;
      if (reading.signal.aborted) throw reading.signal.reason;
      if (error instanceof RangeError) throw refuse(reading, 'budget', 'the document nests too deeply to read');
      // swagger-parser lists problems on separate lines; one line reads better in a log.
      const message = String((error as Error).message)
        .trim()
        .replace(/\.?\s*\n\s*/g, ': ');
      throw refuse(reading, 'invalid', withShortQuotes(message.split(location).join(reading.shown), text));
    }
    const cycle = options.mode === 'dereference' ? exampleCycle(document) : undefined;
    if (cycle)
      throw refuse(reading, 'invalid', `the example at ${cycle} contains itself (its $refs form a cycle); an example must be plain JSON`);
    return { value, text, displayName: reading.shown, base, document };
  });
}

/**
 * The pointer of the first example of a dereferenced document that contains itself. Schemas may
 * recurse; an example is a value sent as is, which a cycle makes impossible to write.
 */
function exampleCycle(document: Record<string, any>): string | undefined {
  const media = (content: unknown, pointer: string): string | undefined => {
    for (const [type, entry] of Object.entries((content ?? {}) as Record<string, any>)) {
      const at = `${pointer}/content/${pointerToken(type)}`;
      const found =
        cyclePointer(entry?.example, `${at}/example`) ??
        Object.entries((entry?.examples ?? {}) as Record<string, any>)
          .map(([name, example]) => cyclePointer(example?.value, `${at}/examples/${pointerToken(name)}/value`))
          .find((pointer) => pointer !== undefined);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, any>)) {
    for (const [method, operation] of Object.entries((item ?? {}) as Record<string, any>)) {
      if (!operation || typeof operation !== 'object') continue;
      const at = `/paths/${pointerToken(path)}/${pointerToken(method)}`;
      const found =
        media(operation.requestBody?.content, `${at}/requestBody`) ??
        Object.entries((operation.responses ?? {}) as Record<string, any>)
          .map(([status, response]) => media(response?.content, `${at}/responses/${status}`))
          .find((pointer) => pointer !== undefined);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
