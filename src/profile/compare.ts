/**
 * @module profile/compare
 * Two profiles side by side (A-66): `profile --diff OLD NEW` lists the declared entries that
 * were added, removed or changed, so a CI job that re-learns a profile nightly can show a
 * reviewer what the server changed; `profile --merge A B` lays B's declared entries over A's.
 * Entry by entry, because an entry is one declared fact: a merge never mixes the parts of two
 * servers' answers to one point into an answer neither gave. Isomorphic.
 */
import { type EntryName, entryNames } from './entries.js';
import type { ServerProfile } from './profile.js';
import { flowYaml } from './write.js';

export interface EntryChange {
  readonly entry: EntryName;
  readonly change: 'added' | 'removed' | 'changed';
  /** The entry as OLD declares it (absent when added). */
  readonly before?: unknown;
  /** The entry as NEW declares it (absent when removed). */
  readonly after?: unknown;
}

/** Whether two JSON values are the same value, whatever the order of their keys. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every((key) => Object.hasOwn(b, key) && sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/**
 * The declared entries that differ, in the register's order. An entry one side declares and
 * the other leaves to the default is added or removed even when its value equals the default:
 * the file no longer speaks for the server there.
 */
export function diffProfiles(before: ServerProfile, after: ServerProfile): EntryChange[] {
  const changes: EntryChange[] = [];
  for (const entry of entryNames) {
    const was = before.declared.has(entry);
    const is = after.declared.has(entry);
    if (!was && !is) continue;
    if (!was) changes.push({ entry, change: 'added', after: after.entries[entry] });
    else if (!is) changes.push({ entry, change: 'removed', before: before.entries[entry] });
    else if (!sameValue(before.entries[entry], after.entries[entry]))
      changes.push({ entry, change: 'changed', before: before.entries[entry], after: after.entries[entry] });
  }
  return changes;
}

export type DiffFormat = 'text' | 'json' | 'markdown';

/** `A-21.malformed-json: {status: 400, code: invalid_json} → {status: 400, code: bad_json}`, one per line. */
function textDiff(changes: readonly EntryChange[], names: { before: string; after: string }): string {
  if (changes.length === 0) return `${names.before} and ${names.after} declare the same entries.\n`;
  const lines = changes.map((item) => {
    if (item.change === 'added') return `+ ${item.entry}: ${flowYaml(item.after)}`;
    if (item.change === 'removed') return `- ${item.entry}: ${flowYaml(item.before)}`;
    return `~ ${item.entry}: ${flowYaml(item.before)} → ${flowYaml(item.after)}`;
  });
  return `${changes.length} ${changes.length === 1 ? 'entry differs' : 'entries differ'} from ${names.before} to ${names.after}:\n${lines.join('\n')}\n`;
}

/** A Markdown table cell: one line, its pipes escaped. */
function cell(value: unknown): string {
  return value === undefined ? '' : `\`${flowYaml(value).replace(/\|/g, '\\|').replace(/`/g, "'")}\``;
}

function markdownDiff(changes: readonly EntryChange[], names: { before: string; after: string }): string {
  const title = `### Profile changes: ${names.before} → ${names.after}\n\n`;
  if (changes.length === 0) return `${title}No entry changed.\n`;
  const rows = changes.map((item) => `| ${item.entry} | ${item.change} | ${cell(item.before)} | ${cell(item.after)} |`);
  return `${title}| Entry | Change | Before | After |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n`;
}

export function formatDiff(changes: readonly EntryChange[], options: { format: DiffFormat; before: string; after: string }): string {
  const names = { before: options.before, after: options.after };
  if (options.format === 'json') return `${JSON.stringify({ ...names, changed: changes.length, changes }, null, 2)}\n`;
  if (options.format === 'markdown') return markdownDiff(changes, names);
  return textDiff(changes, names);
}

/**
 * A's declared entries with B's laid over them, each entry whole (A-66), and the entries both
 * declare differently (B's is kept; the caller says so).
 */
export function mergeProfiles(
  base: ServerProfile,
  overlay: ServerProfile,
): { entries: Partial<Record<EntryName, unknown>>; overridden: EntryName[]; from: Partial<Record<EntryName, 'base' | 'overlay'>> } {
  const entries: Partial<Record<EntryName, unknown>> = {};
  const from: Partial<Record<EntryName, 'base' | 'overlay'>> = {};
  const overridden: EntryName[] = [];
  for (const entry of entryNames) {
    if (overlay.declared.has(entry)) {
      entries[entry] = overlay.entries[entry];
      from[entry] = 'overlay';
      if (base.declared.has(entry) && !sameValue(base.entries[entry], overlay.entries[entry])) overridden.push(entry);
    } else if (base.declared.has(entry)) {
      entries[entry] = base.entries[entry];
      from[entry] = 'base';
    }
  }
  return { entries, overridden, from };
}
