/**
 * @module profile/upgrade
 * `profile --upgrade`: a format 1 profile's text as format 2. Every entry of format 1
 * means the same in format 2, so the upgrade changes only the version: the `profile: 1` value
 * is replaced where it is written and every other byte (entries, comments, layout) is kept. A
 * JSON file stays JSON. The result is read again before it is returned, so what is written is
 * always a profile the harness reads. Isomorphic.
 */
import { isScalar, parseDocument } from 'yaml';
import { currentFormat } from './entries.js';
import { resolveProfile } from './profile.js';

/** Why a text could not be upgraded (it should not happen for a file the reader accepted). */
export class ProfileUpgradeError extends Error {
  override readonly name = 'ProfileUpgradeError';
}

/**
 * The text of a format 1 profile as format 2. `document` is the parsed file (the reader's);
 * `json`: the file is JSON, written back as JSON.
 */
export function upgradedProfileText(options: {
  readonly text: string;
  readonly document: Record<string, unknown>;
  readonly json: boolean;
}): string {
  const { text, document, json } = options;
  const upgraded = json ? `${JSON.stringify({ ...document, profile: currentFormat }, null, 2)}\n` : yamlWithFormat(text);
  // Read again: the text written must hold the same entries, now as format 2.
  const reread = parseDocument(upgraded).toJS() as unknown;
  resolveProfile(reread, 'upgraded');
  const { profile: _before, ...entries } = document;
  const { profile: after, ...kept } = reread as Record<string, unknown>;
  if (after !== currentFormat || JSON.stringify(kept) !== JSON.stringify(entries))
    throw new ProfileUpgradeError('the upgraded text does not hold the same entries');
  return upgraded;
}

/** The YAML text with the top-level `profile` value replaced in place (comments and layout kept). */
function yamlWithFormat(text: string): string {
  const parsed = parseDocument(text);
  const node = parsed.get('profile', true);
  if (!isScalar(node) || !node.range) throw new ProfileUpgradeError('its `profile:` value is not written where it can be replaced');
  const [start, end] = node.range;
  return `${text.slice(0, start)}${currentFormat}${text.slice(end)}`;
}
