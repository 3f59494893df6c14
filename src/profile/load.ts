/**
 * @module profile/load
 * `readProfileFile(path)`: the one way a profile file is read (Node). The file is untrusted
 * input: read as a regular file of at most 256 KiB (src/server/regular-file.ts), parsed with
 * few aliases, unique keys and a depth bound, and refused with the file, the line and the entry
 * named, quoting at most a few dozen of its characters (src/server/document-text.ts, A-27).
 * This function is the seam the project's one document loader replaces (issue 32).
 */
import { extname } from 'node:path';
import { DocumentSyntaxError, locatePath, parseDocumentText, withShortQuotes } from '../server/document-text.js';
import { readRegularFile, UserFileError } from '../server/regular-file.js';
import { ProfileError, resolveProfile, type ServerProfile } from './profile.js';

/** A profile is a few dozen small entries: 256 KiB leaves room for comments and nothing more. */
export const maxProfileBytes = 256 * 1024;
/** A profile needs no alias; a few are allowed, none can multiply (billion laughs). */
const maxAliases = 16;
/** The deepest a profile goes is a health body; nothing needs more. */
const maxDepth = 16;

/** A profile file that cannot be used: the message names the file, the line and the entry. */
export class ProfileFileError extends Error {
  override readonly name = 'ProfileFileError';
}

function depthProblem(value: unknown): string | undefined {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const next = stack.pop()!;
    nodes += 1;
    if (nodes > 10_000) return 'it holds more than 10000 values';
    if (next.depth > maxDepth) return `it is nested more than ${maxDepth} levels deep`;
    if (next.value && typeof next.value === 'object')
      for (const child of Object.values(next.value)) stack.push({ value: child, depth: next.depth + 1 });
  }
  return undefined;
}

async function parseProfileText(text: string, path: string): Promise<unknown> {
  const yaml = extname(path).toLowerCase() !== '.json';
  try {
    if (!yaml) return await parseDocumentText({ text, yaml: false });
    const { parse } = await import('yaml');
    return parse(text, { maxAliasCount: maxAliases, uniqueKeys: true, prettyErrors: true, logLevel: 'error' });
  } catch (error) {
    if (error instanceof DocumentSyntaxError) throw new ProfileFileError(`${path}: not valid JSON: ${error.problem}`);
    const message = String((error as Error)?.message ?? error).split('\n')[0]!;
    const position = (error as { linePos?: readonly { line: number; col: number }[] }).linePos?.[0];
    const where = position ? `line ${position.line}, column ${position.col}: ` : '';
    throw new ProfileFileError(
      `${path}: ${where}not a usable YAML profile: ${withShortQuotes(message.replace(/ at line \d+, column \d+:?$/, ''), text)}`,
    );
  }
}

/**
 * Reads, parses and resolves the profile at `path`. Throws ProfileFileError for a file that
 * cannot be read or parsed and for an entry refused (by shape or by a rule of the contract),
 * each problem on its own line as `FILE:LINE: ENTRY: what is wrong`.
 */
export async function readProfileFile(path: string): Promise<ServerProfile> {
  let text: string;
  try {
    text = (await readRegularFile({ path, maxBytes: maxProfileBytes })).text;
  } catch (error) {
    if (error instanceof UserFileError)
      throw new ProfileFileError(`${error.message}; a profile is a .yaml or .json file (evidence-harness profile --init writes one)`);
    throw error;
  }
  const document = await parseProfileText(text, path);
  const tooBig = depthProblem(document);
  if (tooBig) throw new ProfileFileError(`${path}: refused: ${tooBig}`);
  try {
    return resolveProfile(document, path);
  } catch (error) {
    if (!(error instanceof ProfileError)) throw error;
    const lines: string[] = [];
    for (const problem of error.problems) {
      const segments = (problem.path ?? problem.entry.split('.')).map(String);
      // An unknown key is found where the key itself is written.
      const at = problem.message.startsWith('unknown ')
        ? ((await locatePath({ text, path: segments.slice(0, -1), key: segments.at(-1)! })) ?? (await nearestPosition(text, segments)))
        : await nearestPosition(text, segments);
      lines.push(`${path}${at ? `:${at.line}` : ''}: ${problem.entry}: ${withShortQuotes(problem.message, text)}`);
    }
    throw new ProfileFileError(`profile refused:\n${lines.join('\n')}`);
  }
}

/** Where the value at `segments` (or its nearest parent) is written. */
async function nearestPosition(text: string, segments: readonly string[]): Promise<{ line: number } | undefined> {
  for (let length = segments.length; length >= 0; length -= 1) {
    const at = await locatePath({ text, path: segments.slice(0, length) });
    if (at) return at;
  }
  return undefined;
}
