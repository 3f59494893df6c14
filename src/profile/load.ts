/**
 * @module profile/load
 * `readProfileFile(path)`: the one way a profile file is read (Node). The file is untrusted
 * input, read through the project's one document loader (src/documents, A-30): a regular file
 * of at most 256 KiB, nesting scanned before the parser, aliases and values bounded; a profile
 * also goes no deeper than a health body needs. An entry refused is named with the file and the
 * line, quoting at most a few dozen of the file's characters (src/documents/document-text.ts, A-27).
 */

import { locatePath, withShortQuotes } from '../documents/document-text.js';
import { DocumentError, loadDocument } from '../documents/index.js';
import { ProfileError, profileShapeProblem, resolveProfile, type ServerProfile } from './profile.js';

/** A profile is a few dozen small entries: 256 KiB leaves room for comments and nothing more. */
export const maxProfileBytes = 256 * 1024;

/** A profile file that cannot be used: the message names the file, the line and the entry. */
export class ProfileFileError extends Error {
  override readonly name = 'ProfileFileError';
}

/**
 * Reads, parses and resolves the profile at `path`. Throws ProfileFileError for a file that
 * cannot be read or parsed and for an entry refused (by shape or by a rule of the contract),
 * each problem on its own line as `FILE:LINE: ENTRY: what is wrong`.
 */
export async function readProfileFile(path: string): Promise<ServerProfile> {
  const { text, document } = await loadProfileDocument(path);
  return resolveLoaded({ path, text, document });
}

/** A profile file as read for `profile --upgrade`: its text, the format it declares, and the profile it holds once it is format 2. */
export interface ProfileForUpgrade {
  readonly text: string;
  readonly format: 1 | 2;
  /** The parsed document, as written (format 1 or 2). */
  readonly document: Record<string, unknown>;
}

/**
 * Reads a profile file to upgrade it (`profile --upgrade`): the same reader and refusals as
 * readProfileFile, but a format 1 file is judged as the format 2 file it is to become, so an
 * entry of format 2 already declared in it is no refusal (that is what upgrading mends).
 */
export async function readProfileForUpgrade(path: string): Promise<ProfileForUpgrade> {
  const { text, document } = await loadProfileDocument(path);
  const declared = document && typeof document === 'object' && !Array.isArray(document) ? (document as Record<string, unknown>) : undefined;
  const format = declared?.profile === 1 ? 1 : 2;
  await resolveLoaded({ path, text, document: format === 1 ? { ...declared, profile: 2 } : document });
  return { text, format, document: declared! };
}

async function loadProfileDocument(path: string): Promise<{ text: string; document: unknown }> {
  let text: string;
  let document: unknown;
  try {
    ({ text, value: document } = await loadDocument({ source: path, purpose: 'profile', maxBytes: maxProfileBytes }));
  } catch (error) {
    if (error instanceof DocumentError)
      throw new ProfileFileError(
        error.problem === 'syntax'
          ? error.message
          : `${error.message}; a profile is a .yaml or .json file (evidence-harness profile --init writes one)`,
      );
    throw error;
  }
  const tooBig = profileShapeProblem(document);
  if (tooBig) throw new ProfileFileError(`${path}: refused: ${tooBig}`);
  return { text, document };
}

async function resolveLoaded(options: { path: string; text: string; document: unknown }): Promise<ServerProfile> {
  const { path, text, document } = options;
  try {
    return resolveProfile(document, path);
  } catch (error) {
    if (!(error instanceof ProfileError)) throw error;
    const lines: string[] = [];
    for (const problem of error.problems) {
      const segments = (problem.path ?? problem.entry.split('.')).map(String);
      // An unknown or reserved key is found where the key itself is written.
      const at = problem.atKey
        ? ((await locatePath({ text, path: segments.slice(0, -1), key: segments.at(-1)! })) ?? (await nearestPosition(text, segments)))
        : await nearestPosition(text, segments);
      // The entry's name may be a key of the file's own (an unknown one): quoted as the file's text is.
      lines.push(`${path}${at ? `:${at.line}` : ''}: ${withShortQuotes(`${problem.entry}: ${problem.message}`, text)}`);
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
